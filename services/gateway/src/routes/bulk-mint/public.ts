// The bulk service's reads outside a job: the public CSV template and public media (images
// from uploaded ZIPs, as certificate image URLs point at them).
import { HallmarkError } from '@hallmark/kit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { idParam, type RouteDeps } from '../shared.js';
import { PUBLIC, TAGS } from './common.js';
import { attachment } from './present.js';

/** True when If-None-Match names this entity tag (weak comparison, RFC 9110 § 13.1.2). */
function etagMatches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  return header.split(',').some((t) => t.trim().replace(/^W\//, '') === etag);
}

function mediaHeaders(etag: string) {
  return {
    etag,
    // Content-addressed: the bytes under an id never change.
    'cache-control': 'public, max-age=31536000, immutable',
    'x-content-type-options': 'nosniff',
    // Uploaded bytes are served as inert data, never as a document that could run script.
    'content-security-policy': "default-src 'none'; sandbox",
    // Certificate pages and stores on other origins embed these images.
    'cross-origin-resource-policy': 'cross-origin',
  };
}

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

  app.get<{ Params: { id: string } }>(
    '/media/:id',
    {
      config: PUBLIC,
      schema: {
        tags: TAGS,
        summary: 'An image from an uploaded ZIP (public, immutable)',
        description: 'The stored bytes with their content type; ETag is the sha256; 304 on If-None-Match.',
        params: idParam('id'),
      },
    },
    async (request: FastifyRequest<{ Params: { id: string } }>, reply) => {
      const media = await clients.bulk.getMedia({ media_id: request.params.id }, { idempotent: true });
      const etag = `"${media.sha256}"`;
      void reply.headers(mediaHeaders(etag));
      if (etagMatches(request.headers['if-none-match'], etag)) return reply.status(304).send();
      return reply
        .header('content-type', media.content_type || 'application/octet-stream')
        .send(media.content);
    },
  );
}
