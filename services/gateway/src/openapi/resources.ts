// Response schemas of the resources the gateway answers with (what the `present*` functions
// of the route files build). Documentation only: responses are serialised as built, and the
// e2e suites validate every answer against these, so they cannot drift from the code.
const str = (maxLength = 255, description?: string) => ({
  type: 'string',
  maxLength,
  ...(description ? { description } : {}),
});
const nullable = (s: Record<string, unknown>) => ({ ...s, type: [s.type as string, 'null'] });
const time = { type: 'string', format: 'date-time', maxLength: 40 };
const int = (description?: string) => ({
  type: 'integer',
  format: 'int64',
  minimum: -Number.MAX_SAFE_INTEGER,
  maximum: Number.MAX_SAFE_INTEGER,
  ...(description ? { description } : {}),
});
const list = (items: unknown, maxItems = 100_000) => ({ type: 'array', maxItems, items });
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const obj = (required: string[], properties: Record<string, unknown>, description?: string) => ({
  type: 'object',
  required,
  properties,
  ...(description ? { description } : {}),
});

export const resourceSchemas: Record<string, unknown> = {
  Voucher: obj(
    ['id', 'code', 'type', 'value', 'status', 'created_at', 'livemode'],
    {
      id: { type: 'string', pattern: '^vouch_', maxLength: 64 },
      code: str(32),
      type: { type: 'string', enum: ['percentage', 'fixed_amount'] },
      value: int('1–100 for percentage; minor units for fixed_amount'),
      status: { type: 'string', enum: ['active', 'expired', 'used', 'inactive'] },
      uses_remaining: nullable(int('Null when unlimited')),
      max_uses: nullable(int('Null means unlimited')),
      expires_at: nullable(time),
      created_at: time,
      updated_at: time,
      description: nullable(str(500)),
      currency: nullable({
        type: 'string',
        pattern: '^[A-Z]{3}$',
        maxLength: 3,
        description: 'Capitals (`USD`)',
      }),
      max_uses_per_customer: nullable(int()),
      times_used: int(),
      livemode: { type: 'boolean' },
    },
    'A discount voucher (spec › Resources › Discount voucher)',
  ),
  Redemption: obj(['success', 'discount_applied', 'original_amount', 'final_amount'], {
    success: { type: 'boolean' },
    voucher: { type: 'object' },
    discount_applied: int('Minor units'),
    original_amount: int('Minor units'),
    final_amount: int('Minor units: original − discount'),
    currency: str(3),
    order_id: str(),
    transaction_id: nullable(str(64)),
    redeemed_at: nullable(time),
    replayed: { type: 'boolean', description: 'True when this order had already redeemed the voucher' },
  }),
  ApiKey: obj(
    ['id', 'name', 'type', 'permissions', 'createdAt', 'status', 'keyPrefix', 'livemode'],
    {
      id: { type: 'string', pattern: '^apikey_', maxLength: 64 },
      name: str(100),
      type: {
        type: 'string',
        enum: ['production', 'test', 'restricted', 'enterprise'],
        description: '`enterprise`: made by POST /api/enterprise/api-keys (unversioned scopes)',
      },
      permissions: list(str(64), 50),
      rateLimit: int('Requests per minute'),
      expiresAt: nullable(time),
      createdAt: time,
      lastUsedAt: nullable(time),
      status: { type: 'string', enum: ['active', 'revoked', 'expired'] },
      keyPrefix: str(32, 'The non-secret start of the key, e.g. pk_live_a1B2'),
      allowedIps: list(str(64), 100),
      livemode: { type: 'boolean' },
      accessLevel: { type: 'string', enum: ['owner', 'admin', 'editor', 'viewer'] },
      revokedAt: time,
      key: str(64, 'The secret: only in create and rotate answers'),
      previousKeyValidUntil: nullable(time),
    },
    'An API key (spec › Resources › API key)',
  ),
  WebhookEndpoint: obj(['id', 'url', 'events', 'status', 'created_at'], {
    id: { type: 'string', pattern: '^webhook_', maxLength: 64 },
    url: str(2048),
    events: list(str(100), 50),
    status: str(32),
    description: nullable(str(500)),
    secret: str(200, 'whsec_…: in create and rotate-secret answers'),
    created_at: time,
    updated_at: time,
    livemode: { type: 'boolean' },
    previous_secret_expires_at: time,
  }),
  Delivery: obj(['id', 'status'], {
    id: str(64),
    webhook_id: str(64),
    event_id: str(64),
    event_type: str(100),
    status: str(32),
    attempts: int(),
    max_attempts: int(),
    next_attempt_at: nullable(time),
    created_at: time,
    delivered_at: nullable(time),
    attempt_log: list({ type: 'object' }, 100),
  }),
  Template: obj(['id', 'name', 'type'], {
    id: str(64),
    name: str(200),
    type: str(32),
    kind: str(32),
    format: nullable(str(16)),
    variables: list({ type: 'object' }, 100),
    version: int(),
    ownerId: str(255, 'The owner’s user id (session `sub`) or API key id'),
    access: list(str(16), 3),
    livemode: { type: 'boolean' },
    createdAt: time,
    updatedAt: time,
  }),
  CsvJob: obj(
    ['jobId', 'status', 'totalCount', 'processedCount', 'successCount', 'failedCount', 'createdAt'],
    {
      jobId: str(64),
      status: { type: 'string', enum: ['queued', 'processing', 'completed', 'failed', 'cancelled'] },
      totalCount: int(),
      processedCount: int(),
      successCount: int(),
      failedCount: int(),
      createdAt: time,
      updatedAt: time,
      completedAt: time,
      estimatedCompletionTime: time,
      errors: list(obj(['row', 'error'], { row: int(), error: str(2000) }), 50_000),
      error: str(2000),
      pollUrl: str(200, 'Where to poll the job (also the 202’s Location)'),
    },
    'A bulk job, CSV form (spec › Resources › Bulk mint job, CSV form)',
  ),
};

/** `{success: true, data: <schema>}` of the unversioned surface. */
export const wrapped = (schema: unknown) =>
  obj(['success', 'data'], { success: { type: 'boolean', const: true }, data: schema });

const anyObject = (description: string) => ({ type: 'object', description });

type Success = { status: string; description: string; schema?: unknown; contentType?: string };

/** Success answer per operation (`METHOD /path`); the default is 200 with a JSON object. */
export const SUCCESS: Record<string, Success> = {
  'POST /api/v1/api-keys': {
    status: '201',
    description: 'The key, with its secret (shown once)',
    schema: ref('ApiKey'),
  },
  'GET /api/v1/api-keys': {
    status: '200',
    description: 'Every key the caller may see (never the secrets)',
    schema: obj(['apiKeys'], { apiKeys: list(ref('ApiKey'), 10_000) }),
  },
  'GET /api/v1/api-keys/{key_id}': { status: '200', description: 'The key', schema: ref('ApiKey') },
  'PATCH /api/v1/api-keys/{key_id}': { status: '200', description: 'The updated key', schema: ref('ApiKey') },
  'DELETE /api/v1/api-keys/{key_id}': {
    status: '200',
    description: 'The revoked key',
    schema: ref('ApiKey'),
  },
  'POST /api/v1/api-keys/{key_id}/rotate': {
    status: '200',
    description: 'The key with its new secret',
    schema: ref('ApiKey'),
  },
  'POST /api/v1/api-keys/{key_id}/share': {
    status: '200',
    description: 'Every share of the key; users are named by their session `sub`',
    schema: obj(['keyId', 'shares'], {
      keyId: str(64),
      shares: list(
        obj(['userId', 'level'], {
          userId: str(255, 'The user’s session `sub`'),
          level: str(16),
          permissions: list(str(16), 2),
          createdAt: time,
        }),
        1000,
      ),
    }),
  },
  'GET /api/v1/api-keys/{key_id}/audit-logs': {
    status: '200',
    description: 'Newest first; `userId` is the acting user’s session `sub` (or the API key id)',
    schema: obj(['logs'], {
      logs: list(
        obj(['timestamp', 'action'], {
          timestamp: time,
          action: str(32),
          userId: str(255),
          ipAddress: str(64),
          endpoint: str(300),
          statusCode: int(),
        }),
        100,
      ),
    }),
  },
  'GET /api/v1/vouchers': {
    status: '200',
    description: 'A page of vouchers, newest first',
    schema: obj(['vouchers', 'pagination'], {
      vouchers: list(ref('Voucher'), 100),
      pagination: ref('Pagination'),
    }),
  },
  'POST /api/v1/vouchers': { status: '201', description: 'The voucher', schema: ref('Voucher') },
  'GET /api/v1/vouchers/{voucher_id}': { status: '200', description: 'The voucher', schema: ref('Voucher') },
  'PATCH /api/v1/vouchers/{voucher_id}': {
    status: '200',
    description: 'The updated voucher',
    schema: ref('Voucher'),
  },
  'DELETE /api/v1/vouchers/{voucher_id}': {
    status: '200',
    description: 'Deleted permanently',
    schema: obj(['id', 'deleted'], { id: str(64), deleted: { type: 'boolean' } }),
  },
  'POST /api/v1/vouchers/redeem': {
    status: '200',
    description: 'The redemption result',
    schema: ref('Redemption'),
  },
  'POST /api/v1/vouchers/validate': {
    status: '200',
    description: 'What redeem would answer; nothing consumed',
    schema: ref('Redemption'),
  },
  'POST /api/enterprise/api-keys': {
    status: '201',
    description: 'The enterprise key, its secret shown once',
    schema: obj(['success', 'apiKey'], {
      success: { type: 'boolean', const: true },
      apiKey: obj(['key', 'keyPrefix', 'scopes', 'id', 'createdAt'], {
        key: str(64),
        keyPrefix: str(32),
        scopes: list(str(32), 4),
        id: str(64),
        createdAt: time,
      }),
    }),
  },
  'POST /api/v1/webhooks': {
    status: '201',
    description: 'The endpoint, with its signing secret',
    schema: ref('WebhookEndpoint'),
  },
  'GET /api/v1/webhooks/{webhook_id}': {
    status: '200',
    description: 'The endpoint',
    schema: ref('WebhookEndpoint'),
  },
  'PATCH /api/v1/webhooks/{webhook_id}': {
    status: '200',
    description: 'The updated endpoint',
    schema: ref('WebhookEndpoint'),
  },
  'POST /api/v1/webhooks/{webhook_id}/deliveries/{delivery_id}/retry': {
    status: '202',
    description: 'The delivery, queued again',
    schema: ref('Delivery'),
  },
  'POST /api/v1/webhooks/{webhook_id}/test': {
    status: '202',
    description: 'The test delivery, queued',
    schema: ref('Delivery'),
  },
  'POST /api/enterprise/webhooks': {
    status: '201',
    description: '`{success, webhook}`',
    schema: anyObject('Subscription'),
  },
  'POST /api/v1/templates': { status: '201', description: 'The template', schema: ref('Template') },
  'GET /api/v1/templates/{template_id}': {
    status: '200',
    description: 'The template',
    schema: ref('Template'),
  },
  'PATCH /api/v1/templates/{template_id}': {
    status: '200',
    description: 'The template',
    schema: ref('Template'),
  },
  'GET /api/bulk-mint': {
    status: '200',
    description: 'A page of jobs, newest first',
    schema: wrapped(
      obj(['jobs', 'pagination'], {
        jobs: list(ref('CsvJob'), 100),
        pagination: obj(['page', 'limit', 'totalPages', 'totalItems'], {
          page: int(),
          limit: int(),
          totalPages: int(),
          totalItems: int(),
        }),
      }),
    ),
  },
  'GET /api/bulk-mint/{jobId}/download/{type}': {
    status: '200',
    description: '`csv`: one line per row; `zip`: metadata/<row>.json and images/<row>.<ext> per certificate',
    contentType: 'application/octet-stream',
  },
  'GET /api/bulk-mint/template/csv': {
    status: '200',
    description: 'The CSV template',
    contentType: 'text/csv',
  },
  'GET /media/{id}': { status: '200', description: 'The image bytes', contentType: 'image/*' },
  'GET /verify/{id}': { status: '200', description: 'The verification page', contentType: 'text/html' },
  'GET /verify/{id}/qr.svg': {
    status: '200',
    description: 'QR code of the page',
    contentType: 'image/svg+xml',
  },
  'GET /verify/{id}/qr.png': { status: '200', description: 'QR code of the page', contentType: 'image/png' },
  'GET /vouchers/{id}': {
    status: '200',
    description: 'The certificate voucher page',
    contentType: 'text/html',
  },
  'GET /api/billing/cost-preview/{count}': {
    status: '200',
    description: 'Price (minor units, currency `USD`) and gas estimate',
    schema: wrapped(
      obj(['count', 'currency', 'unitPrice', 'totalPrice'], {
        count: int(),
        currency: { type: 'string', pattern: '^[A-Z]{3}$', maxLength: 3 },
        unitPrice: int(),
        totalPrice: int(),
        estimatedGas: int(),
        estimatedGasPerCertificate: int(),
        batches: int(),
        note: str(200),
      }),
    ),
  },
};
