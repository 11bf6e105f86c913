// The bulk service's reads outside a job: the public CSV template. (Public media moved to
// routes/media/: images belong to the certificates service.)
import { HallmarkError } from '@hallmark/kit';
import type { FastifyInstance } from 'fastify';
import type { RouteDeps } from '../shared.js';
import { PUBLIC, TAGS } from './common.js';
import { attachment } from './present.js';

export default async function publicRoutes(app: FastifyInstance, { clients }: RouteDeps) {
  // `/api/bulk-mint/template` is no job id: a 404 pointing at the template, not the 401 the
  // job route (`/api/bulk-mint/:jobId`, authenticated) would give an anonymous caller.
  app.get('/api/bulk-mint/template', { config: PUBLIC, schema: { hide: true } }, async () => {
    throw new HallmarkError('resource_not_found', {
      message:
        'No route GET /api/bulk-mint/template. The CSV template is at GET /api/bulk-mint/template/csv.',
    });
  });
  app.get(
    '/api/bulk-mint/template/csv',
    {
      config: PUBLIC,
      schema: {
        tags: TAGS,
        summary: 'CSV template for the CSV form (public)',
        description: 'Every column with an example row, as a text/csv attachment.',
      },
    },
    async (_request, reply) => {
      const file = await clients.bulk.csvTemplate({}, { idempotent: true });
      return reply
        .header('content-type', file.content_type || 'text/csv; charset=utf-8')
        .header('content-disposition', attachment(file.filename, 'bulk-mint-template.csv'))
        .header('x-content-type-options', 'nosniff')
        .header('cache-control', 'public, max-age=300')
        .send(file.content);
    },
  );
}
