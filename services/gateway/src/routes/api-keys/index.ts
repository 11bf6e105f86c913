// API keys: the versioned surface (`/api/v1/api-keys`, keys and sessions) and the enterprise
// dashboard's list (`/api/enterprise/api-keys`), both served by the keys service.
import type { FastifyInstance } from 'fastify';
import type { RouteDeps } from '../shared.js';
import apiKeys from './keys.js';
import enterpriseApiKeys from './enterprise.js';

export default async function routes(app: FastifyInstance, deps: RouteDeps) {
  await app.register(apiKeys, deps);
  await app.register(enterpriseApiKeys, deps);
}
