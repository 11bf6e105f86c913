// One log line per request (route pattern, never the query string, which may carry a
// discouraged api_key) and, for API-key requests, a usage record shipped off the path.
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { UsageRecorder } from '../auth/usage-recorder.js';

/** Now in ISO 8601, formatted once per millisecond: a busy gateway answers several per ms. */
let lastMs = -1;
let lastIso = '';
function isoNow(): string {
  const ms = Date.now();
  if (ms !== lastMs) {
    lastMs = ms;
    lastIso = new Date(ms).toISOString();
  }
  return lastIso;
}

export default fp(async function accessLog(app: FastifyInstance, opts: { usage: UsageRecorder }) {
  // A callback hook, not an async one: nothing here waits, so no promise per request.
  app.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url ?? 'unmatched';
    const latency = reply.elapsedTime;
    request.log.info(
      { method: request.method, route, status: reply.statusCode, latency_ms: Math.round(latency * 10) / 10 },
      'request completed',
    );
    const key = request.auth?.key;
    if (key) {
      opts.usage.record({
        key_id: key.key_id,
        method: request.method,
        path: route,
        status_code: reply.statusCode,
        latency_ms: latency,
        ip_address: request.ip,
        at: isoNow(),
      });
    }
    done();
  });
});
