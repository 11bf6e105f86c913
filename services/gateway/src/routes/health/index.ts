// /healthz: the process is up. /readyz: the gateway can serve: it answers 200 while it runs
// and is not draining (Fastify answers 503 to every request once close() began), whatever the
// backends do. A backend that is down does not take the gateway out of the load balancer:
// the routes it serves answer 503 `service_unavailable` in their surface's format, and every
// other route (the public verify page while platform is down, say) keeps working. Which
// backends are degraded is an operator's business: HALLMARK_READYZ_DETAIL=true adds each
// service's gRPC health (and the gateway's log names the ones not serving).
import type { FastifyInstance } from 'fastify';
import type { RouteDeps } from '../shared.js';

export default async function healthRoutes(app: FastifyInstance, { clients, config }: RouteDeps) {
  app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }));

  app.get('/readyz', { schema: { hide: true } }, async (request, reply) => {
    reply.status(200).header('cache-control', 'no-store');
    if (!config.HALLMARK_READYZ_DETAIL) return { status: 'ready' };
    const entries = await Promise.all(
      Object.entries(clients.health).map(async ([name, probe]) => [name, await probe.check(1000)] as const),
    );
    // The shared rate-limit store: while Redis fails, limits are counted per gateway.
    const store = app.rateLimitStore;
    if (store) entries.push(['redis', store.degraded ? 'NOT_SERVING' : 'SERVING']);
    const degraded = entries.filter(([, status]) => status !== 'SERVING').map(([name]) => name);
    if (degraded.length) request.log.warn({ degraded }, 'ready, degraded: a backend is not serving');
    return { status: 'ready', services: Object.fromEntries(entries), degraded };
  });
}
