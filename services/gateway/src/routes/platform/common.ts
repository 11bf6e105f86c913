// What every platform endpoint file shares: the OpenAPI tag, access, and the request and
// answer schemas of the unversioned surface (spec › Endpoints › Platform integration). Errors
// are the error plugin's envelope, documented by the document's shared error responses.
import type { Integration as IntegrationRecord } from '@hallmark/proto/platform/v1/platform';
import type { Access } from '../../endpoint/define.js';
import { bool, closed, nullable, oneOf, str, time, Type, type Static } from '../../endpoint/schema.js';

export const TAGS = ['Platform integration'];

/** User-driven operations: a user session only (spec › Authentication 4). */
export const SESSION: Access = { auth: 'session' };

/** The platform's own calls (install redirect, webhooks): no credential, per client address. */
export const PUBLIC: Access = { auth: 'public', rateGroup: 'public' };

/** The platform's store domains (checked again, with the configured suffix, by the service). */
export const shopSchema = Type.String({
  minLength: 3,
  maxLength: 255,
  pattern: '^[A-Za-z0-9][A-Za-z0-9.-]*$',
  description: 'The shop’s platform store domain, e.g. `my-shop.myshopify.com`',
});

export const shopBody = closed({ shop: shopSchema });

export const ok = Type.Literal(true);

export const Credentials = Type.Object(
  {
    enterpriseId: str(64, 'ent_…'),
    apiKeyId: str(64, 'apikey_… (scopes bulk:mint, bulk:retry)'),
    apiKey: str(200, 'The key’s secret, shown once'),
    webhookSecret: Type.String({
      pattern: '^[0-9a-f]{64}$',
      maxLength: 64,
      description: '64 hexadecimal characters',
    }),
    shop: Type.Optional(str(255)),
  },
  { additionalProperties: false },
);

/** An integration as the platform endpoints show it (never a token or secret). */
export const Integration = Type.Object(
  {
    shop: str(255),
    enterpriseId: str(64),
    apiKeyId: Type.Optional(nullable(str(64))),
    status: oneOf(['active', 'uninstalled']),
    settings: Type.Object(
      {
        autoFulfill: Type.Optional(bool),
        productTemplateMapping: Type.Optional(
          Type.Unsafe<Record<string, unknown> | null>({
            type: ['object', 'null'],
            additionalProperties: true,
          }),
        ),
      },
      { additionalProperties: false },
    ),
    installedAt: Type.Optional(time),
    updatedAt: Type.Optional(time),
    lastError: Type.Optional(
      nullable(
        Type.Object(
          {
            code: str(64),
            message: str(1000),
            param: Type.Optional(nullable(str(200))),
            orderId: str(100),
            orderName: Type.Optional(nullable(str(100))),
            occurredAt: time,
          },
          {
            additionalProperties: false,
            description:
              'The last paid order that could not become its job; null when none (or a later one did)',
          },
        ),
      ),
    ),
  },
  { additionalProperties: false },
);

/** `{success, integration}`: what the endpoints returning the integration answer. */
export const IntegrationAnswer = Type.Object(
  { success: ok, integration: Integration },
  { additionalProperties: false },
);

export function presentIntegration(i: IntegrationRecord): Static<typeof Integration> {
  return {
    shop: i.shop,
    enterpriseId: i.enterprise_id,
    apiKeyId: i.api_key_id || null,
    status: i.status,
    settings: {
      autoFulfill: i.auto_fulfill,
      productTemplateMapping: i.product_template_mapping_json
        ? JSON.parse(i.product_template_mapping_json)
        : null,
    },
    installedAt: i.installed_at,
    updatedAt: i.updated_at,
    lastError: i.last_error
      ? {
          code: i.last_error.code,
          message: i.last_error.message,
          param: i.last_error.param || null,
          orderId: i.last_error.order_id,
          orderName: i.last_error.order_name || null,
          occurredAt: i.last_error.occurred_at,
        }
      : null,
  };
}
