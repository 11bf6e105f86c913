// PATCH /api/bulk-mint/:jobId/items/:row: fix a failed row in place, then retry the job.
// Outside the bulk-mint plugin's raw-string JSON parser (index.ts): this body is a small
// object the schema checks field by field.
import { defineEndpoint } from '../../endpoint/define.js';
import { closed, int, nullable, str, Type, wrapped } from '../../endpoint/schema.js';
import { principalOf } from '../shared.js';
import { RETRY, TAGS } from './common.js';

export const fixBulkMintItem = defineEndpoint({
  method: 'PATCH',
  url: '/api/bulk-mint/:jobId/items/:row',
  operationId: 'fixBulkMintItem',
  tags: TAGS,
  summary: 'Fix a failed row in place (then retry the job)',
  description:
    'Needs `bulk:retry`. The body holds the corrected cells by CSV column (`name`, `description`, ' +
    '`category`, `recipientEmail`, `recipientName`, `imageUrl`, `expiryDays`, `gtin`, `serial`, `passportUrl`, `attribute_<Name>`; ' +
    '`null` or "" clears an optional one). The row, with these laid over its cells, is validated ' +
    'exactly as an uploaded row (400 naming the column). The row is then `failed` with a note ' +
    'until `POST /api/bulk-mint/{jobId}/retry` processes it in the same job. Only rows of a ' +
    'finished CSV job that failed or were invalid. `{success, data:{jobId, row, name, status, error}}`.',
  access: RETRY,
  params: closed({
    jobId: Type.String({ minLength: 1, maxLength: 64 }),
    row: Type.Integer({ minimum: 1, maximum: 1_000_000 }),
  }),
  // Each value is text, a number or null: checked by the bulk service with the row's own rule
  // (an ajv union here would coerce a number or null into text first).
  body: Type.Unsafe<Record<string, string | number | null>>({
    type: 'object',
    minProperties: 1,
    maxProperties: 120,
    additionalProperties: { description: 'Text, a number, or null to clear an optional cell' },
  }),
  responses: {
    200: {
      description: 'The row, corrected: failed until the job is retried',
      schema: wrapped(
        Type.Object({
          jobId: str(64),
          row: int(),
          name: str(500),
          status: str(32),
          error: nullable(str(2000)),
        }),
      ),
    },
  },
  handler: async (request, { clients }) => {
    const res = await clients.bulk.fixItem({
      principal: principalOf(request),
      job_id: request.params.jobId,
      row: request.params.row,
      fields_json: JSON.stringify(request.body),
    });
    return {
      success: true as const,
      data: {
        jobId: request.params.jobId,
        row: res.row,
        name: res.name,
        status: res.status,
        error: res.error || null,
      },
    };
  },
});
