// Shared parts of the OpenAPI document: the error shapes of both surfaces (spec › Errors),
// pagination, the rate-limit headers (spec › Limits 1), the standard error responses, the
// security schemes (spec › Authentication 1–4) and the tags.
import { Pagination } from '../routes/pagination.js';

const requestId = {
  type: 'string',
  pattern: '^[0-9A-Za-z][0-9A-Za-z_.:-]{7,63}$',
  maxLength: 64,
  description:
    "The request id: the caller's well-formed `X-Request-Id` (8–64 characters of letters, digits and `_ - . :`, starting with a letter or digit), else a fresh `req_…`",
};
const text = (description: string, maxLength = 2000) => ({ type: 'string', maxLength, description });

const errorFields = {
  type: {
    type: 'string',
    enum: [
      'authentication_error',
      'invalid_request_error',
      'rate_limit_error',
      'resource_error',
      'permission_error',
      'validation_error',
      'payment_error',
      'api_error',
    ],
  },
  code: { type: 'string', maxLength: 64, pattern: '^[a-z_]+$', description: 'For programs (spec › Errors)' },
  message: text('For people'),
  param: text('The offending parameter (`value`, `lineItems[0].quantity`, `Hallmark-Mode`)', 200),
  request_id: requestId,
  retry_after: {
    type: 'integer',
    format: 'int32',
    minimum: 1,
    maximum: 86_400,
    description: 'Seconds (429)',
  },
  limit_window: {
    type: 'string',
    maxLength: 32,
    pattern: '^[a-z_]+$',
    description:
      'Which window refused a 429: `minute`, `hour`, `burst` (the 1-second guard) or an endpoint group',
  },
  resource: text('Resource errors: the kind of object', 64),
  resource_id: text('Resource errors: its id', 255),
  required_permission: text('Permission errors: the scope needed', 64),
  errors: {
    type: 'array',
    maxItems: 100,
    description: 'Validation errors: every problem found',
    items: {
      type: 'object',
      required: ['field', 'message'],
      properties: { field: text('Field', 200), message: text('Problem') },
    },
  },
};

export const schemas: Record<string, unknown> = {
  ErrorEnvelope: {
    type: 'object',
    description:
      'Error of the versioned surface (/api/v1) and of pages: `{error:{type, code, message, param?, request_id}}`',
    required: ['error'],
    properties: {
      error: {
        type: 'object',
        required: ['type', 'code', 'message', 'request_id'],
        properties: errorFields,
      },
    },
    example: {
      error: {
        type: 'invalid_request_error',
        code: 'parameter_invalid',
        message: 'Invalid value: must be <= 1000000000000.',
        param: 'value',
        request_id: 'req_4Q2m9XbT7cLp0aZ1yN8kVw3e',
      },
    },
  },
  ApiError: {
    type: 'object',
    description:
      'Error of the unversioned surface (/api): `{success:false, error, code, param?, request_id}`',
    required: ['success', 'error', 'code', 'request_id'],
    properties: {
      success: { type: 'boolean', const: false },
      error: text('For people'),
      ...Object.fromEntries(Object.entries(errorFields).filter(([k]) => k !== 'message' && k !== 'type')),
      existingJobId: text('Bulk order form 409: the job the Idempotency-Key named', 64),
      status: text('Bulk order form 409: that job’s status', 32),
    },
    example: {
      success: false,
      error: 'The bulk:mint scope is required.',
      code: 'insufficient_permissions',
      required_permission: 'bulk:mint',
      request_id: 'req_4Q2m9XbT7cLp0aZ1yN8kVw3e',
    },
  },
  Pagination,
};

const rateHeader = (description: string) => ({
  description,
  schema: { type: 'integer', format: 'int64', minimum: 0, maximum: Number.MAX_SAFE_INTEGER },
});

/** spec › Limits 1: on every response of a counted route. */
export const headers: Record<string, unknown> = {
  'X-RateLimit-Limit': rateHeader(
    'Requests allowed in the window closest to running out: the key’s configured per-minute or per-hour limit, ' +
      'or the endpoint group’s (never the 1-second burst guard); on a 429, the window that refused',
  ),
  'X-RateLimit-Remaining': rateHeader('Requests left in that window'),
  'X-RateLimit-Reset': rateHeader('When that window resets (unix seconds)'),
  'Retry-After': rateHeader('Seconds to wait (429)'),
  'X-Request-Id': { description: 'The request id (also in every error body)', schema: requestId },
};

export const rateLimitHeaders = {
  'X-RateLimit-Limit': { $ref: '#/components/headers/X-RateLimit-Limit' },
  'X-RateLimit-Remaining': { $ref: '#/components/headers/X-RateLimit-Remaining' },
  'X-RateLimit-Reset': { $ref: '#/components/headers/X-RateLimit-Reset' },
};

export type Surface = 'v1' | 'api';

/** The standard error statuses each operation may answer, with their meaning. */
export const ERROR_STATUSES: Record<string, string> = {
  '400': 'Invalid parameters, malformed JSON or a non-JSON body (`invalid_content_type`)',
  '401': 'Missing, invalid, revoked or expired credential',
  '403': 'Authenticated but not permitted (scope, IP allowlist, role)',
  '404': 'No such object (in this mode: the message says when it exists in the other mode)',
  '409': 'Conflict with the current state (a code or key that exists, an object being changed)',
  '413': 'The request body is larger than the operation accepts',
  '414': 'A path parameter is too long',
  '422': 'Semantic error (e.g. a voucher that is expired, inactive or used up)',
  '429': 'Rate limit exceeded: `retry_after` in the body and the `Retry-After` header',
  '500': 'Server error (retryable; nothing beyond the request id is shown)',
  '502':
    'A dependency (the e-commerce platform, a mail or SMS provider, the chain) refused or failed the call (retryable)',
  '503': 'A dependency is unavailable (`service_unavailable`; retryable)',
  '504': 'A dependency did not answer in time (retryable)',
};

/** `components.responses`: one per status and surface (`V1Error400`, `ApiError429`, …). */
export function errorResponses(): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const surface of ['v1', 'api'] as const) {
    const schema = { $ref: `#/components/schemas/${surface === 'v1' ? 'ErrorEnvelope' : 'ApiError'}` };
    for (const [status, description] of Object.entries(ERROR_STATUSES)) {
      const withRate = status.startsWith('4');
      out[responseName(surface, status)] = {
        description,
        headers: {
          ...(withRate ? rateLimitHeaders : {}),
          ...(status === '429' ? { 'Retry-After': { $ref: '#/components/headers/Retry-After' } } : {}),
          'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' },
        },
        content: { 'application/json': { schema } },
      };
    }
  }
  return out;
}

export const responseName = (surface: Surface, status: string) =>
  `${surface === 'v1' ? 'V1' : 'Api'}Error${status}`;

export const securitySchemes = {
  bearerAuth: {
    type: 'http',
    scheme: 'bearer',
    description:
      'An API key as `Authorization: Bearer pk_live_…` (also `pk_test_…`, `pk_restricted_…`), the versioned ' +
      'surface’s form (spec › Authentication 1)',
  },
  apiKeyHeader: {
    type: 'apiKey',
    in: 'header',
    name: 'x-api-key',
    description: 'An API key in `x-api-key`, the unversioned surface’s form (spec › Authentication 2)',
  },
  apiKeyQuery: {
    type: 'apiKey',
    in: 'query',
    name: 'api_key',
    description:
      'Accepted but discouraged: it exposes the key in logs (spec › Authentication 3). Answered with a `Warning` header.',
  },
  platformHmac: {
    type: 'apiKey',
    in: 'header',
    name: 'X-Platform-Hmac-Sha256',
    description:
      'The e-commerce platform’s own calls: the base64 HMAC-SHA256 of the raw body with the app secret ' +
      '(spec › Authentication 12). Only the platform sends it.',
  },
  sessionJwt: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description:
      'A user session token (`Authorization: Bearer <JWT>`, spec › Authentication 4): `sub` is the user id, `ent` the ' +
      'enterprise; at most 24 hours. Validated per RFC8725 (JWT best practices): the algorithm is pinned, `exp` is ' +
      'required and the lifetime capped.',
  },
};

export const tags = [
  { name: 'API keys', description: 'Keys, their limits, usage, audit logs and sharing (spec › API key)' },
  {
    name: 'Discount vouchers',
    description: 'Codes with percentage or fixed discounts, redeemed against orders',
  },
  { name: 'Webhook endpoints', description: 'Signed event deliveries of the versioned surface' },
  { name: 'Templates', description: 'Document, e-mail and workflow templates with variables and grants' },
  {
    name: 'Enterprise',
    description: 'Session-token forms: enterprise keys, subscriptions, the warranty template',
  },
  { name: 'Certificates', description: 'Public verification, the verify page, token metadata, warranty' },
  { name: 'Allowlist', description: 'Contract allowlist status of user addresses' },
  {
    name: 'Bulk mint',
    description: 'CSV and order-form bulk issuance jobs, downloads, the CSV template, media',
  },
  { name: 'Billing', description: 'Cost preview of minting' },
  { name: 'Certificate vouchers', description: 'Claimable certificate references made by bulk jobs' },
  {
    name: 'Gifts',
    description:
      'Certificates sent by single-use claim links: create, resend, revoke, the claim page, the claim',
  },
  {
    name: 'Credentials',
    description:
      'Certificates as W3C verifiable credentials: the credential, the proof bundle, issuer DIDs, status lists (docs/credentials.md)',
  },
  {
    name: 'NFC tags',
    description:
      'Tap to verify: NTAG 424 DNA tags bound to certificates, their keys, and the page a tap opens (docs/nfc-tags.md)',
  },
  {
    name: 'Platform integration',
    description:
      'E-commerce app install by OAuth, inbound order webhooks, fulfilment (spec › Platform integration)',
  },
];
