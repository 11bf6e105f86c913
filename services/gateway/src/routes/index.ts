// Every route of the gateway, one folder per resource. Each folder's index registers its
// routes; each route file holds schemas, OpenAPI metadata and thin handlers (validate →
// authorise → one gRPC call → shape). `shared.ts` and `bounds.ts` are what they all use.
import type { FastifyInstance } from 'fastify';
import allowlist from './allowlist/index.js';
import apiKeys from './api-keys/index.js';
import billing from './billing/index.js';
import bulkMint, { bulkMintItems } from './bulk-mint/index.js';
import certificateVouchers from './certificate-vouchers/index.js';
import certificates from './certificates/index.js';
import credentials from './credentials/index.js';
import chainSettings from './chain-settings/index.js';
import consoleApp from './console/index.js';
import digitalLink from './digital-link/index.js';
import discountVouchers from './discount-vouchers/index.js';
import enterpriseProfile from './enterprise-profile/index.js';
import documentTemplates from './document-templates/index.js';
import gifts from './gifts/index.js';
import health from './health/index.js';
import media from './media/index.js';
import platform from './platform/index.js';
import tags from './tags/index.js';
import resale from './resale/index.js';
import verify from './verify/index.js';
import warrantyTemplates from './warranty-templates/index.js';
import webhooks from './webhooks/index.js';

import type { RouteDeps } from './shared.js';

export default async function routes(app: FastifyInstance, deps: RouteDeps) {
  await app.register(health, deps);
  await app.register(apiKeys, deps);
  await app.register(discountVouchers, deps);
  await app.register(webhooks, deps);
  await app.register(documentTemplates, deps);
  await app.register(certificates, deps);
  await app.register(verify, deps);
  await app.register(digitalLink, deps);
  await app.register(warrantyTemplates, deps);
  await app.register(gifts, deps);
  await app.register(resale, deps);
  await app.register(allowlist, deps);
  await app.register(bulkMint, deps);
  await app.register(bulkMintItems, deps);
  await app.register(billing, deps);
  await app.register(platform, deps);
  await app.register(certificateVouchers, deps);
  await app.register(enterpriseProfile, deps);
  await app.register(media, deps);
  await app.register(credentials, deps);
  await app.register(chainSettings, deps);
  await app.register(tags, deps);
  await app.register(consoleApp, deps);
}
