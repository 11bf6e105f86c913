// The bulk-mint surface (spec › Endpoints › Bulk mint), served by the bulk service over
// gRPC, each endpoint declared once (endpoint/define.ts). An encapsulated plugin: multipart
// parsing and the raw-string JSON parser exist only for these routes, so no other route's
// body handling changes.
import multipart from '@fastify/multipart';
import type { FastifyInstance } from 'fastify';
import { endpointsOf, registerEndpoints } from '../../endpoint/define.js';
import type { RouteDeps } from '../shared.js';
import * as create from './create.js';
import { MULTIPART_LIMITS } from './csv-upload.js';
import * as download from './download.js';
import * as items from './items.js';
import * as jobs from './jobs.js';

export default async function bulk(app: FastifyInstance, deps: RouteDeps) {
  await app.register(multipart, { limits: MULTIPART_LIMITS, throwFileSizeLimit: true });
  // The order form goes to the bulk service as received (it validates and names fields);
  // parsing up to 32 MB here only to serialise it again would cost the gateway's event loop.
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) =>
    done(null, body),
  );
  registerEndpoints(app, deps, endpointsOf(create, jobs, download));
}

/** Outside the plugin above: its body is a small JSON object, parsed and checked by its schema. */
export async function bulkMintItems(app: FastifyInstance, deps: RouteDeps) {
  registerEndpoints(app, deps, endpointsOf(items));
}
