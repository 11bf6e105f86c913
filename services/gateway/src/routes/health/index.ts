// /healthz: the process is up. /readyz: the gateway can serve: it answers 200 while it runs
// and is not draining (Fastify answers 503 to every request once close() began), whatever the
// backends do. A backend that is down does not take the gateway out of the load balancer:
// the routes it serves answer 503 `service_unavailable` in their surface's format, and every
// other route (the public verify page while platform is down, say) keeps working. Which
// backends are degraded is an operator's business: HALLMARK_READYZ_DETAIL=true adds each
// service's gRPC health (and the gateway's log names the ones not serving).
// Probes: declared, but kept out of the OpenAPI document.
import type { FastifyInstance } from 'fastify';
import { defineEndpoint, registerEndpoints } from '../../endpoint/define.js';
import { list, str, Type } from '../../endpoint/schema.js';
import type { RouteDeps } from '../shared.js';

export const healthz = defineEndpoint({
  method: 'GET',
  url: '/healthz',
  hidden: true,
  responses: {
    200: { description: 'The process is up', schema: Type.Object({ status: Type.Literal('ok') }) },
  },
  handler: async () => ({ status: 'ok' as const }),
});

export const readyz = defineEndpoint({
  method: 'GET',
  url: '/readyz',
  hidden: true,
  responses: {
    200: {
      description: 'Ready; with HALLMARK_READYZ_DETAIL, each backend’s gRPC health and the degraded ones',
      schema: Type.Object({
        status: Type.Literal('ready'),
        services: Type.Optional(Type.Record(Type.String(), str(32))),
        degraded: Type.Optional(list(str(64), 100)),
      }),
    },
  },
  handler: async (request, { clients, config, reply }) => {
    reply.header('cache-control', 'no-store');
    if (!config.HALLMARK_READYZ_DETAIL) return { status: 'ready' as const };
    const entries = await Promise.all(
      Object.entries(clients.health).map(async ([name, probe]) => [name, await probe.check(1000)] as const),
    );
    // The shared rate-limit store: while Redis fails, limits are counted per gateway.
    const store = request.server.rateLimitStore;
    if (store) entries.push(['redis', store.degraded ? 'NOT_SERVING' : 'SERVING']);
    const degraded = entries.filter(([, status]) => status !== 'SERVING').map(([name]) => name);
    if (degraded.length) request.log.warn({ degraded }, 'ready, degraded: a backend is not serving');
    return { status: 'ready' as const, services: Object.fromEntries(entries), degraded };
  },
});

export default async function healthRoutes(app: FastifyInstance, deps: RouteDeps) {
  registerEndpoints(app, deps, [healthz, readyz]);
}
