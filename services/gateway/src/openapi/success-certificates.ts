// Success answers of the enterprise's warranty template (warranty-templates routes, not yet
// declared: endpoint/define.ts), field by field as the route handlers present it. Merged
// into SUCCESS.
import { list, obj, str, time } from './schema-helpers.js';

const bool = { type: 'boolean' };

const WarrantyTemplate = obj(['id', 'name', 'fields'], {
  id: str(64),
  name: str(200),
  fields: list(
    obj(['name', 'label', 'type', 'required', 'description'], {
      name: str(64),
      label: str(200),
      type: { type: 'string', enum: ['select', 'date', 'text', 'textarea', 'url'] },
      required: bool,
      options: list(str(64), 50),
      description: str(500),
    }),
    100,
  ),
  createdAt: time,
});

type Success = {
  status: string;
  description: string;
  schema?: unknown;
  also?: [string, string][];
};

export const SUCCESS_CERTIFICATES: Record<string, Success> = {
  'POST /api/enterprise/templates/init-warranty': {
    status: '200',
    description: 'The warranty template existed already',
    schema: WarrantyTemplate,
    also: [['201', 'The warranty template was created']],
  },
  'GET /api/enterprise/templates/{id}': {
    status: '200',
    description: 'The template',
    schema: WarrantyTemplate,
  },
};
