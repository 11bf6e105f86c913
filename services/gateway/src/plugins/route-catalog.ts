// Every route's auth mode, scopes and rate group, collected as routes register: the
// OpenAPI document gets the matching `security` requirement (openapi/finish.ts), and the shared security
// test suite walks this catalogue so every new authenticated route is covered for free.
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { AuthMode, RateGroup } from '../auth/types.js';
import type { Endpoint } from '../endpoint/define.js';

export interface CatalogEntry {
  method: string;
  url: string;
  auth: AuthMode;
  scopes: string[];
  rateGroup?: RateGroup;
  /** The declaration, for routes registered by endpoint/define.ts. */
  endpoint?: Endpoint;
}

declare module 'fastify' {
  interface FastifyInstance {
    routeCatalog: CatalogEntry[];
  }
}

export default fp(async function routeCatalog(app: FastifyInstance) {
  const catalog: CatalogEntry[] = [];
  app.decorate('routeCatalog', catalog);
  app.addHook('onRoute', (route) => {
    const auth = route.config?.auth ?? 'public';
    const scope = route.config?.scope;
    const scopes = scope === undefined ? [] : Array.isArray(scope) ? scope : [scope];
    for (const method of Array.isArray(route.method) ? route.method : [route.method]) {
      if (method === 'HEAD' || route.schema?.hide) continue;
      catalog.push({
        method,
        url: route.url,
        auth,
        scopes,
        rateGroup: route.config?.rateGroup,
        endpoint: route.config?.endpoint,
      });
    }
  });
});
