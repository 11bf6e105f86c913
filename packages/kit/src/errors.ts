// The one error catalogue. Every `type`/`code` pair of the spec's Errors part and the
// voucher codes lives here with its HTTP status, gRPC status and public message.
// Services throw `HallmarkError`; it travels as a gRPC status with the code in
// metadata (see grpc/errors.ts); the gateway renders it in one place.
//
// Pure (no I/O, no gRPC runtime): domain code imports it as `@hallmark/kit/errors`. The gRPC
// status numbers are the protocol's own (grpc/grpc doc/statuscodes.md); grpc-js's `status`
// enum has the same values, checked by test/errors.test.ts.

/** gRPC status codes used by the catalogue (the protocol's numbers). */
export const GrpcStatus = {
  UNKNOWN: 2,
  INVALID_ARGUMENT: 3,
  DEADLINE_EXCEEDED: 4,
  NOT_FOUND: 5,
  ALREADY_EXISTS: 6,
  PERMISSION_DENIED: 7,
  RESOURCE_EXHAUSTED: 8,
  FAILED_PRECONDITION: 9,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAVAILABLE: 14,
  UNAUTHENTICATED: 16,
} as const;
export type GrpcStatus = (typeof GrpcStatus)[keyof typeof GrpcStatus];

export type ErrorType =
  | 'authentication_error'
  | 'invalid_request_error'
  | 'rate_limit_error'
  | 'resource_error'
  | 'permission_error'
  | 'validation_error'
  | 'payment_error'
  | 'api_error';

interface Entry {
  type: ErrorType;
  http: number;
  message: string;
  retryable?: boolean;
}

const HTTP_TO_GRPC: Record<number, GrpcStatus> = {
  400: GrpcStatus.INVALID_ARGUMENT,
  401: GrpcStatus.UNAUTHENTICATED,
  402: GrpcStatus.FAILED_PRECONDITION,
  403: GrpcStatus.PERMISSION_DENIED,
  404: GrpcStatus.NOT_FOUND,
  405: GrpcStatus.UNIMPLEMENTED,
  409: GrpcStatus.ALREADY_EXISTS,
  413: GrpcStatus.INVALID_ARGUMENT,
  415: GrpcStatus.INVALID_ARGUMENT,
  422: GrpcStatus.FAILED_PRECONDITION,
  429: GrpcStatus.RESOURCE_EXHAUSTED,
  500: GrpcStatus.INTERNAL,
  502: GrpcStatus.UNAVAILABLE,
  503: GrpcStatus.UNAVAILABLE,
  504: GrpcStatus.DEADLINE_EXCEEDED,
};

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
} as const satisfies Record<string, Entry>;

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

export class HallmarkError extends Error {
  readonly code: ErrorCode;
  readonly param?: string;
  readonly extras: ErrorExtras;

  constructor(
    code: ErrorCode,
    opts: { message?: string; param?: string; extras?: ErrorExtras; cause?: unknown } = {},
  ) {
    super(opts.message ?? ERROR_CATALOGUE[code].message, { cause: opts.cause });
    this.name = 'HallmarkError';
    this.code = code;
    this.param = opts.param;
    this.extras = opts.extras ?? {};
  }

  get type(): ErrorType {
    return ERROR_CATALOGUE[this.code].type;
  }
  get httpStatus(): number {
    return ERROR_CATALOGUE[this.code].http;
  }
  get grpcStatus(): GrpcStatus {
    return grpcStatusOf(this.code);
  }
  get retryable(): boolean {
    const e: Entry = ERROR_CATALOGUE[this.code];
    return e.retryable ?? false;
  }
}

export function grpcStatusOf(code: ErrorCode): GrpcStatus {
  return HTTP_TO_GRPC[ERROR_CATALOGUE[code].http] ?? GrpcStatus.UNKNOWN;
}

export function isErrorCode(code: string): code is ErrorCode {
  return Object.hasOwn(ERROR_CATALOGUE, code);
}

/** Shorthands for the errors thrown most. */
export const notFound = (resource: string, id?: string) =>
  new HallmarkError('resource_not_found', {
    message: `No such ${resource}${id ? `: '${id}'` : ''}.`,
    extras: { resource, ...(id ? { resource_id: id } : {}) },
  });

/**
 * The 404 of an object that exists in the other mode (Stripe's wording): a test key asking
 * for a live object, or the reverse, learns why it cannot see it.
 */
export const notFoundInOtherMode = (resource: string, id: string, requestLivemode: boolean) =>
  new HallmarkError('resource_not_found', {
    message:
      `No such ${resource}: '${id}'; a similar object exists in ${requestLivemode ? 'test' : 'live'} mode, ` +
      `but a ${requestLivemode ? 'live' : 'test'} mode key was used to make this request.`,
    extras: { resource, resource_id: id },
  });

export const invalidParam = (param: string, message: string) =>
  new HallmarkError('parameter_invalid', { param, message });

export const missingParam = (param: string) =>
  new HallmarkError('parameter_missing', { param, message: `Missing required parameter: ${param}.` });
