// Success answers of the versioned surface's lists, deletes and sub-resources (templates):
// what each route handler returns, field by field. Merged into SUCCESS (success.ts).
import { int, list, obj, ref, str, time } from './schema-helpers.js';

const bool = { type: 'boolean' };
const deleted = obj(['id', 'deleted'], { id: str(64), deleted: bool });

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
};
