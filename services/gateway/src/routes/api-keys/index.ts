// API keys: the versioned surface (`/api/v1/api-keys`, keys and sessions) and the enterprise
// dashboard's form (`/api/enterprise/api-keys`), both served by the keys service. Each
// endpoint is declared once (endpoint/define.ts).
import type { FastifyInstance } from 'fastify';
import { registerEndpoints } from '../../endpoint/define.js';
import type { RouteDeps } from '../shared.js';
import { getApiKeyUsage, listApiKeyAuditLogs, shareApiKey } from './activity.js';
import { createEnterpriseApiKey } from './enterprise.js';
import { createApiKey, getApiKey, listApiKeys, revokeApiKey, rotateApiKey, updateApiKey } from './keys.js';

export default async function routes(app: FastifyInstance, deps: RouteDeps) {
  registerEndpoints(app, deps, [
    createApiKey,
    listApiKeys,
    getApiKey,
    updateApiKey,
    revokeApiKey,
    rotateApiKey,
    getApiKeyUsage,
    shareApiKey,
    listApiKeyAuditLogs,
    createEnterpriseApiKey,
  ]);
}
