// PATCH /api/bulk-mint/:jobId/items/:row: fix a failed row in place, then retry the job.
// Outside the bulk-mint plugin's raw-string JSON parser (index.ts): this body is a small
// object the schema checks field by field.
import type { FastifyInstance } from 'fastify';
import { principalOf, type RouteDeps } from '../shared.js';
import { RETRY, TAGS } from './common.js';

export default async function itemRoutes(app: FastifyInstance, { clients }: RouteDeps) {
  app.patch<{ Params: { jobId: string; row: number }; Body: Record<string, string | number | null> }>(
    '/api/bulk-mint/:jobId/items/:row',
    {
      config: RETRY,
      schema: {
        tags: TAGS,
        summary: 'Fix a failed row in place (then retry the job)',
        description:
          'Needs `bulk:retry`. The body holds the corrected cells by CSV column (`name`, `description`, ' +
          '`category`, `recipientEmail`, `recipientName`, `imageUrl`, `expiryDays`, `attribute_<Name>`; ' +
          '`null` or "" clears an optional one). The row, with these laid over its cells, is validated ' +
          'exactly as an uploaded row (400 naming the column). The row is then `failed` with a note ' +
          'until `POST /api/bulk-mint/{jobId}/retry` processes it in the same job. Only rows of a ' +
          'finished CSV job that failed or were invalid. `{success, data:{jobId, row, name, status, error}}`.',
        params: {
          type: 'object',
          required: ['jobId', 'row'],
          additionalProperties: false,
          properties: {
            jobId: { type: 'string', minLength: 1, maxLength: 64 },
            row: { type: 'integer', minimum: 1, maximum: 1_000_000 },
          },
        },
        body: {
          type: 'object',
          minProperties: 1,
          maxProperties: 120,
          // Each value is text, a number or null: checked by the bulk service with the row's own
          // rule (an ajv union here would coerce a number or null into text first).
          additionalProperties: { description: 'Text, a number, or null to clear an optional cell' },
        },
      },
    },
    async (request) => {
      const res = await clients.bulk.fixItem({
        principal: principalOf(request),
        job_id: request.params.jobId,
        row: request.params.row,
        fields_json: JSON.stringify(request.body),
      });
      return {
        success: true,
        data: {
          jobId: request.params.jobId,
          row: res.row,
          name: res.name,
          status: res.status,
          error: res.error || null,
        },
      };
    },
  );
}
