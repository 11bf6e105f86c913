// What every platform route file shares: the OpenAPI tag, auth and rate groups, and the
// response schemas of the unversioned surface (spec › Endpoints › Platform integration).
import { apiError } from '../shared.js';

export const TAGS = ['Platform integration'];

/** User-driven operations: a user session only (spec › Authentication 4). */
export const SESSION = { auth: 'session' as const };

/** The platform's own calls (install redirect, webhooks): no credential, per client address. */
export const PUBLIC = { auth: 'public' as const, rateGroup: 'public' as const };

/** The platform's store domains (checked again, with the configured suffix, by the service). */
export const shopSchema = {
  type: 'string',
  minLength: 3,
  maxLength: 255,
  pattern: '^[A-Za-z0-9][A-Za-z0-9.-]*$',
  description: 'The shop’s platform store domain, e.g. `my-shop.myshopify.com`',
} as const;

export const ERRORS = {
  400: apiError('Validation failed (`parameter_invalid`, `parameter_missing`), naming the field in `param`'),
  401: apiError('Missing or invalid user session'),
  403: apiError('The session may not do this'),
  404: apiError('No integration of this shop for the caller’s enterprise'),
  429: apiError('Rate limited (`Retry-After`)'),
  502: apiError('The platform refused or failed the call'),
  504: apiError('The platform did not answer in time'),
};

export const credentialsSchema = {
  type: 'object',
  required: ['enterpriseId', 'apiKeyId', 'apiKey', 'webhookSecret'],
  additionalProperties: false,
  properties: {
    enterpriseId: { type: 'string', maxLength: 64, description: 'ent_…' },
    apiKeyId: { type: 'string', maxLength: 64, description: 'apikey_… (scopes bulk:mint, bulk:retry)' },
    apiKey: { type: 'string', maxLength: 200, description: 'The key’s secret, shown once' },
    webhookSecret: {
      type: 'string',
      pattern: '^[0-9a-f]{64}$',
      maxLength: 64,
      description: '64 hexadecimal characters',
    },
    shop: { type: 'string', maxLength: 255 },
  },
} as const;

export const integrationSchema = {
  type: 'object',
  required: ['shop', 'enterpriseId', 'status', 'settings'],
  additionalProperties: false,
  properties: {
    shop: { type: 'string', maxLength: 255 },
    enterpriseId: { type: 'string', maxLength: 64 },
    apiKeyId: { type: ['string', 'null'], maxLength: 64 },
    status: { type: 'string', enum: ['active', 'uninstalled'] },
    settings: {
      type: 'object',
      additionalProperties: false,
      properties: {
        autoFulfill: { type: 'boolean' },
        productTemplateMapping: { type: ['object', 'null'], additionalProperties: true },
      },
    },
    installedAt: { type: 'string', format: 'date-time', maxLength: 40 },
    updatedAt: { type: 'string', format: 'date-time', maxLength: 40 },
    lastError: {
      type: ['object', 'null'],
      description: 'The last paid order that could not become its job; null when none (or a later one did)',
      required: ['code', 'message', 'orderId', 'occurredAt'],
      additionalProperties: false,
      properties: {
        code: { type: 'string', maxLength: 64 },
        message: { type: 'string', maxLength: 1000 },
        param: { type: ['string', 'null'], maxLength: 200 },
        orderId: { type: 'string', maxLength: 100 },
        orderName: { type: ['string', 'null'], maxLength: 100 },
        occurredAt: { type: 'string', format: 'date-time', maxLength: 40 },
      },
    },
  },
} as const;

/** The answers of the routes that return the integration (`{success, integration}`). */
export const integrationAnswers = (description: string) => ({
  200: {
    description,
    type: 'object',
    required: ['success', 'integration'],
    additionalProperties: false,
    properties: { success: { type: 'boolean', const: true }, integration: integrationSchema },
  },
  400: ERRORS[400],
  401: ERRORS[401],
  404: ERRORS[404],
  429: ERRORS[429],
});
