// /healthz: the process is up. /readyz: every downstream service answers the standard
// gRPC health check with SERVING (a load balancer sends traffic only then).
import type { FastifyInstance } from 'fastify';
import type { Clients } from '../clients.js';

export default async function healthRoutes(app: FastifyInstance, { clients }: { clients: Clients }) {
  app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }));

  app.get('/readyz', { schema: { hide: true } }, async (_request, reply) => {
    const entries = await Promise.all(
      Object.entries(clients.health).map(async ([name, probe]) => [name, await probe.check(1000)] as const),
    );
    const services = Object.fromEntries(entries);
    const ready = entries.every(([, status]) => status === 'SERVING');
    return reply.status(ready ? 200 : 503).send({ status: ready ? 'ready' : 'not_ready', services });
  });
}
