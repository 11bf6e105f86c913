// /healthz: the process is up. /readyz: every downstream service answers the standard
// gRPC health check with SERVING (a load balancer sends traffic only then). The public
// answer says only ready or not ready: which backends exist and which one is down is an
// operator's business (HALLMARK_READYZ_DETAIL=true adds them; the gateway's log always
// names the services that are not serving).
import type { FastifyInstance } from 'fastify';
import type { RouteDeps } from '../shared.js';

export default async function healthRoutes(app: FastifyInstance, { clients, config }: RouteDeps) {
  app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }));

  app.get('/readyz', { schema: { hide: true } }, async (request, reply) => {
    const entries = await Promise.all(
      Object.entries(clients.health).map(async ([name, probe]) => [name, await probe.check(1000)] as const),
    );
    const services = Object.fromEntries(entries);
    const ready = entries.every(([, status]) => status === 'SERVING');
    if (!ready) request.log.warn({ services }, 'not ready: a service is not serving');
    return reply
      .status(ready ? 200 : 503)
      .header('cache-control', 'no-store')
      .send({
        status: ready ? 'ready' : 'not_ready',
        ...(config.HALLMARK_READYZ_DETAIL ? { services } : {}),
      });
  });
}
