// Success answers of the versioned surface's lists, deletes and sub-resources (webhooks,
// templates, the enterprise profile) and of the enterprise webhooks: what
// each route handler returns, field by field. Merged into SUCCESS (success.ts).
import { int, list, nullable, obj, ref, str, time } from './schema-helpers.js';

const bool = { type: 'boolean' };
const deleted = obj(['id', 'deleted'], { id: str(64), deleted: bool });

const Subscription = obj(['id', 'url', 'events', 'enabled', 'createdAt'], {
  id: str(64),
  url: str(2048),
  events: list(str(100), 50),
  enabled: bool,
  secret: str(200, 'Only in the create answer'),
  createdAt: time,
  status: {
    type: 'string',
    enum: ['active', 'failing', 'disabled'],
    description:
      'failing: failed attempts in a row past a threshold; disabled: not enabled (set, or after more)',
  },
  consecutiveFailures: int(),
  lastFailureAt: nullable(time),
  lastError: nullable(str(2000)),
});

const EnterpriseProfile = obj(
  ['enterpriseId', 'displayName', 'website', 'logoUrl', 'logo', 'indexable', 'domain', 'updatedAt'],
  {
    enterpriseId: str(64),
    displayName: str(100),
    website: str(2048),
    logoUrl: nullable(str(2048)),
    // Hallmark's archived copy of the logo (what the pages show), and its size.
    logo: nullable(
      obj(['url', 'sha256', 'width', 'height'], {
        url: str(2048),
        sha256: str(64),
        width: int(),
        height: int(),
      }),
    ),
    indexable: bool,
    domain: obj(['host', 'status', 'checkedAt', 'detail'], {
      host: str(300),
      status: { type: 'string', enum: ['verified', 'unverified'] },
      checkedAt: time,
      detail: nullable(str(300)),
    }),
    updatedAt: time,
  },
);

const Variable = obj(['name', 'type', 'required'], {
  name: str(100),
  type: str(32),
  required: bool,
  defaultValue: { description: 'Any JSON value' },
});

const TemplateVersion = obj(['id', 'templateId', 'version', 'variables', 'createdAt'], {
  id: str(64),
  templateId: str(64),
  version: int(),
  template: { type: 'object', description: 'Snapshot of the template’s content as of this version' },
  variables: list(Variable, 100),
  createdAt: time,
  createdBy: str(255, 'A user’s session `sub`, or an API key id'),
  changelog: str(1000),
});

const TemplateAccess = obj(['templateId', 'ownerId', 'grants'], {
  templateId: str(64),
  ownerId: str(255, 'A user’s session `sub`, or an API key id'),
  grants: list(
    obj(['userId', 'access', 'grantedBy', 'grantedAt'], {
      userId: str(255, 'The user’s session `sub`'),
      access: list({ type: 'string', enum: ['read', 'write', 'delete'] }, 3),
      grantedBy: str(255),
      grantedAt: time,
    }),
    1000,
  ),
});

type Success = {
  status: string;
  description: string;
  schema?: unknown;
  contentType?: string;
  also?: [string, string][];
};

export const SUCCESS_V1: Record<string, Success> = {
  'GET /api/v1/webhooks': {
    status: '200',
    description: 'A page of endpoints, newest first (secrets never shown)',
    schema: obj(['webhooks', 'pagination'], {
      webhooks: list(ref('WebhookEndpoint'), 100),
      pagination: ref('Pagination'),
    }),
  },
  'DELETE /api/v1/webhooks/{webhook_id}': {
    status: '200',
    description: 'Deleted with its deliveries',
    schema: deleted,
  },
  'GET /api/v1/webhooks/{webhook_id}/deliveries': {
    status: '200',
    description: 'A page of deliveries, newest first',
    schema: obj(['deliveries', 'pagination'], {
      deliveries: list(ref('Delivery'), 100),
      pagination: ref('Pagination'),
    }),
  },
  'POST /api/v1/webhooks/{webhook_id}/rotate-secret': {
    status: '200',
    description: 'The endpoint with its new secret (shown once)',
    schema: ref('WebhookEndpoint'),
  },
  'POST /api/enterprise/webhooks': {
    status: '201',
    description: 'The subscription, its secret shown once',
    schema: obj(['success', 'webhook'], { success: { type: 'boolean', const: true }, webhook: Subscription }),
  },
  'GET /api/enterprise/webhooks': {
    status: '200',
    description: 'Every subscription of the enterprise (never the secrets)',
    schema: obj(['success', 'webhooks'], {
      success: { type: 'boolean', const: true },
      webhooks: list(Subscription, 1000),
    }),
  },
  'GET /api/enterprise/webhooks/{webhook_id}': {
    status: '200',
    description: 'The subscription',
    schema: obj(['success', 'webhook'], { success: { type: 'boolean', const: true }, webhook: Subscription }),
  },
  'DELETE /api/enterprise/webhooks/{webhook_id}': {
    status: '200',
    description: 'Deleted',
    schema: obj(['success', 'id', 'deleted'], {
      success: { type: 'boolean', const: true },
      id: str(64),
      deleted: bool,
    }),
  },
  'PATCH /api/enterprise/webhooks/{webhook_id}': {
    status: '200',
    description: 'The subscription',
    schema: obj(['success', 'webhook'], { success: { type: 'boolean', const: true }, webhook: Subscription }),
  },
  'GET /api/enterprise/webhooks/{webhook_id}/deliveries': {
    status: '200',
    description: 'A page of the subscription’s deliveries with their attempts, newest first',
    schema: obj(['success', 'deliveries', 'pagination'], {
      success: { type: 'boolean', const: true },
      deliveries: list(ref('Delivery'), 100),
      pagination: ref('Pagination'),
    }),
  },
  'POST /api/enterprise/webhooks/{webhook_id}/test': {
    status: '202',
    description: 'The test delivery, queued',
    schema: obj(['success', 'delivery'], {
      success: { type: 'boolean', const: true },
      delivery: ref('Delivery'),
    }),
  },
  'GET /api/v1/listen/sessions/{session_id}/deliveries': {
    status: '200',
    description: 'A page of the session’s deliveries, newest first',
    schema: obj(['deliveries', 'pagination'], {
      deliveries: list(ref('Delivery'), 100),
      pagination: ref('Pagination'),
    }),
  },
  'GET /api/v1/listen': {
    status: '200',
    description:
      'A Server-Sent Events stream: `session` first, then one event per delivery (see the description)',
    contentType: 'text/event-stream',
  },
  'GET /api/v1/templates': {
    status: '200',
    description: 'A page of the templates the caller may read',
    schema: obj(['templates', 'pagination'], {
      templates: list(ref('Template'), 100),
      pagination: ref('Pagination'),
    }),
  },
  'DELETE /api/v1/templates/{template_id}': { status: '200', description: 'Deleted', schema: deleted },
  'GET /api/v1/templates/{template_id}/versions': {
    status: '200',
    description: 'Version records, newest first',
    schema: obj(['versions'], { versions: list(TemplateVersion, 10_000) }),
  },
  'POST /api/v1/templates/{template_id}/versions/{version}/restore': {
    status: '200',
    description: 'The template, its current version now a copy of the restored one',
    schema: ref('Template'),
  },
  'POST /api/v1/templates/{template_id}/render': {
    status: '200',
    description: 'The rendered file in the template’s format (HTML inline; PDF and DOCX as attachments)',
    contentType: 'application/octet-stream',
  },
  'GET /api/v1/templates/{template_id}/access': {
    status: '200',
    description: 'The owner and the grants; users named by their session `sub`',
    schema: TemplateAccess,
  },
  'POST /api/v1/templates/{template_id}/access': {
    status: '200',
    description: 'The owner and the grants after the change',
    schema: TemplateAccess,
  },
  'DELETE /api/v1/templates/{template_id}/access/{user_id}': {
    status: '200',
    description: 'The owner and the grants after the change',
    schema: TemplateAccess,
  },
  'GET /api/v1/enterprise/profile': {
    status: '200',
    description: 'The issuer profile and its domain proof state',
    schema: EnterpriseProfile,
  },
  'PUT /api/v1/enterprise/profile': {
    status: '200',
    description: 'The profile as saved, with the outcome of the domain proof just checked',
    schema: EnterpriseProfile,
  },
  'POST /api/v1/enterprise/profile/domain-check': {
    status: '200',
    description: 'The profile with the outcome of the domain proof just checked',
    schema: EnterpriseProfile,
  },
};
