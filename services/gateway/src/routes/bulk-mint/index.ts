// The bulk-mint surface (spec › Endpoints › Bulk mint), served by the bulk service over
// gRPC, each endpoint declared once (endpoint/define.ts). An encapsulated plugin: multipart
// parsing and the raw-string JSON parser exist only for these routes, so no other route's
// body handling changes.
import multipart from '@fastify/multipart';
import type { FastifyInstance } from 'fastify';
import { registerEndpoints } from '../../endpoint/define.js';
import type { RouteDeps } from '../shared.js';
import { createBulkMintJob } from './create.js';
import { MULTIPART_LIMITS } from './csv-upload.js';
import { bulkMintTemplateHint, downloadBulkMintResults, getBulkMintCsvTemplate } from './download.js';
import { fixBulkMintItem } from './items.js';
import { cancelBulkMintJob, getBulkMintJob, listBulkMintJobs, retryBulkMintJob } from './jobs.js';

export default async function bulk(app: FastifyInstance, deps: RouteDeps) {
  await app.register(multipart, { limits: MULTIPART_LIMITS, throwFileSizeLimit: true });
  // The order form goes to the bulk service as received (it validates and names fields);
  // parsing up to 32 MB here only to serialise it again would cost the gateway's event loop.
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) =>
    done(null, body),
  );
  registerEndpoints(app, deps, [
    createBulkMintJob,
    getBulkMintJob,
    listBulkMintJobs,
    retryBulkMintJob,
    cancelBulkMintJob,
    downloadBulkMintResults,
    getBulkMintCsvTemplate,
    bulkMintTemplateHint,
  ]);
}

/** Outside the plugin above: its body is a small JSON object, parsed and checked by its schema. */
export async function bulkMintItems(app: FastifyInstance, deps: RouteDeps) {
  registerEndpoints(app, deps, [fixBulkMintItem]);
}
