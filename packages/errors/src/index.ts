// The Hallmark API's error catalogue: every `type`/`code` pair of the spec's Errors part and
// the voucher codes, with its HTTP status and public message. One list for both sides of the
// API: the server kit (`@hallmark/kit/errors`, which adds how an error crosses gRPC) throws
// these codes, and the client (`@hallmark/client`) reads them back, taking an answer's type
// from its code where the unversioned surface leaves the type out.
//
// No dependencies and no I/O, so the client bundles it without the server's runtime.

export type ErrorType =
  | 'authentication_error'
  | 'invalid_request_error'
  | 'rate_limit_error'
  | 'resource_error'
  | 'permission_error'
  | 'validation_error'
  | 'payment_error'
  | 'api_error';

/** What the catalogue says of one code. */
export interface ErrorEntry {
  type: ErrorType;
  http: number;
  message: string;
  retryable?: boolean;
}

export const ERROR_CATALOGUE = {
  // authentication_error
  invalid_api_key: { type: 'authentication_error', http: 401, message: 'The API key provided is invalid.' },
  missing_api_key: {
    type: 'authentication_error',
    http: 401,
    message: 'No API key or session token was provided.',
  },
  expired_api_key: { type: 'authentication_error', http: 401, message: 'The API key has expired.' },
  invalid_token: {
    type: 'authentication_error',
    http: 401,
    message: 'The session token is invalid or has expired.',
  },
  // invalid_request_error
  parameter_missing: {
    type: 'invalid_request_error',
    http: 400,
    message: 'A required parameter is missing.',
  },
  parameter_invalid: {
    type: 'invalid_request_error',
    http: 400,
    message: 'A parameter has an invalid value.',
  },
  parameter_unknown: {
    type: 'invalid_request_error',
    http: 400,
    message: 'The request has an unknown parameter.',
  },
  malformed_json: {
    type: 'invalid_request_error',
    http: 400,
    message: 'The request body is not valid JSON.',
  },
  invalid_content_type: {
    type: 'invalid_request_error',
    http: 400,
    message: 'The request content type is not supported.',
  },
  method_not_allowed: {
    type: 'invalid_request_error',
    http: 405,
    message: 'The method is not supported on this path.',
  },
  payload_too_large: { type: 'invalid_request_error', http: 400, message: 'The request body is too large.' },
  // rate_limit_error
  rate_limit_exceeded: {
    type: 'rate_limit_error',
    http: 429,
    message: 'Too many requests. Retry later.',
    retryable: true,
  },
  concurrent_limit_exceeded: {
    type: 'rate_limit_error',
    http: 429,
    message: 'Too many concurrent requests.',
    retryable: true,
  },
  // resource_error
  resource_not_found: { type: 'resource_error', http: 404, message: 'The resource does not exist.' },
  resource_already_exists: { type: 'resource_error', http: 409, message: 'The resource already exists.' },
  resource_locked: {
    type: 'resource_error',
    http: 409,
    message: 'The resource is locked by another operation.',
    retryable: true,
  },
  resource_deleted: { type: 'resource_error', http: 404, message: 'The resource has been deleted.' },
  // permission_error
  insufficient_permissions: {
    type: 'permission_error',
    http: 403,
    message: 'The credential lacks the permission this request needs.',
  },
  // validation_error
  validation_failed: { type: 'validation_error', http: 422, message: 'The request failed validation.' },
  // payment_error
  card_declined: { type: 'payment_error', http: 402, message: 'The card was declined.' },
  insufficient_funds: { type: 'payment_error', http: 402, message: 'Insufficient funds.' },
  payment_method_invalid: { type: 'payment_error', http: 402, message: 'The payment method is invalid.' },
  processing_error: {
    type: 'payment_error',
    http: 402,
    message: 'The payment could not be processed.',
    retryable: true,
  },
  // api_error
  internal_error: { type: 'api_error', http: 500, message: 'An internal error occurred.', retryable: true },
  service_unavailable: {
    type: 'api_error',
    http: 503,
    message: 'A dependency is unavailable. Retry later.',
    retryable: true,
  },
  upstream_error: { type: 'api_error', http: 502, message: 'An upstream provider failed.', retryable: true },
  upstream_timeout: { type: 'api_error', http: 504, message: 'An upstream call timed out.', retryable: true },
  // gifts (spec: Errors › Unversioned surface): the sender has no custodial signing key.
  sender_credential_missing: {
    type: 'api_error',
    http: 502,
    message: 'The sender has no credential to sign the transfer with.',
  },
  // lost and stolen (docs/lost-and-stolen.md): a resource_error like resource_locked (409,
  // conflict with the certificate's state), but not retryable: it holds until the report is
  // cleared by whoever the brand's policy allows.
  certificate_reported_stolen: {
    type: 'resource_error',
    http: 409,
    message:
      'The certificate is reported stolen or lost; it cannot change hands until the report is cleared.',
  },
  // voucher errors (spec: Errors › Voucher errors)
  voucher_not_found: { type: 'resource_error', http: 404, message: 'No voucher has this code.' },
  voucher_expired: { type: 'invalid_request_error', http: 422, message: 'The voucher has expired.' },
  voucher_max_uses_reached: {
    type: 'invalid_request_error',
    http: 422,
    message: 'The voucher has no uses left.',
  },
  voucher_inactive: { type: 'invalid_request_error', http: 422, message: 'The voucher is inactive.' },
  voucher_code_exists: {
    type: 'resource_error',
    http: 409,
    message: 'A voucher with this code already exists.',
  },
} as const satisfies Record<string, ErrorEntry>;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;

/** Extra fields the envelope carries by type (spec: Errors › Envelope). */
export interface ErrorExtras {
  retry_after?: number;
  resource?: string;
  resource_id?: string;
  required_permission?: string;
  errors?: { field: string; message: string }[];
  decline_code?: string;
  payment_id?: string;
  [k: string]: unknown;
}

export function isErrorCode(code: string): code is ErrorCode {
  return Object.hasOwn(ERROR_CATALOGUE, code);
}
