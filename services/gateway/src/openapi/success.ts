// The success answer of each operation (`METHOD /path`): its status, meaning and schema.
// Documentation only; the e2e suites validate real answers against it.
import { int, list, obj, ref } from './schema-helpers.js';
import { SUCCESS_BULK } from './success-bulk.js';
import { SUCCESS_CERTIFICATES } from './success-certificates.js';
import { SUCCESS_V1 } from './success-v1.js';

/** `{success: true, data: <schema>}` of the unversioned surface. */
export const wrapped = (schema: unknown) =>
  obj(['success', 'data'], { success: { type: 'boolean', const: true }, data: schema });

type Success = {
  status: string;
  description: string;
  schema?: unknown;
  contentType?: string;
  /** Other statuses answered with the same body: [status, meaning]. */
  also?: [string, string][];
};

/** Success answer per operation (`METHOD /path`); the default is 200 with a JSON object. */
export const SUCCESS: Record<string, Success> = {
  ...SUCCESS_V1,
  ...SUCCESS_CERTIFICATES,
  ...SUCCESS_BULK,
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
};
