// Every route group of the gateway. Each file holds its routes' schemas, OpenAPI metadata
// and thin handlers (validate → authorise → one gRPC call → shape).
import type { FastifyInstance } from 'fastify';
import bulk from './bulk/index.js';
import certificates from './certificates.js';
import enterpriseApiKeys from './enterprise/api-keys.js';
import enterpriseWebhooks from './enterprise/webhooks.js';
import gifts from './gifts/index.js';
import healthRoutes from './health.js';
import platform from './platform/index.js';
import allowlist from './v1/allowlist.js';
import apiKeys from './v1/api-keys.js';
import templateAccess from './v1/template-access.js';
import templates from './v1/templates.js';
import vouchers from './v1/vouchers.js';
import webhooks from './v1/webhooks.js';
import verify from './verify.js';
import warranty from './warranty.js';

import type { RouteDeps } from './shared.js';

export default async function routes(app: FastifyInstance, deps: RouteDeps) {
  await app.register(healthRoutes, deps);
  await app.register(apiKeys, deps);
  await app.register(vouchers, deps);
  await app.register(enterpriseApiKeys, deps);
  await app.register(webhooks, deps);
  await app.register(enterpriseWebhooks, deps);
  await app.register(templates, deps);
  await app.register(templateAccess, deps);
  await app.register(certificates, deps);
  await app.register(verify, deps);
  await app.register(warranty, deps);
  await app.register(gifts, deps);
  await app.register(allowlist, deps);
  await app.register(bulk, deps);
  await app.register(platform, deps);
}
