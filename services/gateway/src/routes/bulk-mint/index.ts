// The bulk-mint surface (spec › Endpoints › Bulk mint), served by the bulk service over
// gRPC. An encapsulated plugin: multipart parsing and the raw-string JSON parser exist only
// for these routes, so no other route's body handling changes.
import multipart from '@fastify/multipart';
import type { FastifyInstance } from 'fastify';
import type { RouteDeps } from '../shared.js';
import createRoute from './create.js';
import { MULTIPART_LIMITS } from './csv-upload.js';
import jobRoutes from './jobs.js';
export { default as bulkMintItems } from './items.js';
import publicRoutes from './public.js';

export default async function bulk(app: FastifyInstance, deps: RouteDeps) {
  await app.register(multipart, { limits: MULTIPART_LIMITS, throwFileSizeLimit: true });
  // The order form goes to the bulk service as received (it validates and names fields);
  // parsing up to 32 MB here only to serialise it again would cost the gateway's event loop.
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) =>
    done(null, body),
  );
  await app.register(createRoute, deps);
  await app.register(jobRoutes, deps);
  await app.register(publicRoutes, deps);
}
