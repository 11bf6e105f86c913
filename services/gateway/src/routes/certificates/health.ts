// GET /api/certificate/health: the spec's `{status, timestamp}` and nothing more. Which part
// is down (database, chain, relayer funds) is an operator's business, told in the gateway's
// log and in metrics (hallmark_relayer_balance_wei), not to anonymous callers.
import { defineEndpoint } from '../../endpoint/define.js';
import { str, time, Type } from '../../endpoint/schema.js';
import { PUBLIC, TAGS } from './certificate.js';

const HealthAnswer = Type.Object({ status: str(32), timestamp: time });

export const getCertificateHealth = defineEndpoint({
  method: 'GET',
  url: '/api/certificate/health',
  operationId: 'getCertificateHealth',
  tags: TAGS,
  summary: 'Whether certificates can be read and minted',
  access: PUBLIC,
  responses: {
    200: {
      description: '`{status: ok, timestamp}`: certificates can be read and minted',
      schema: HealthAnswer,
    },
    503: {
      description:
        '`{status: degraded, timestamp}`: a part is down or the relayer balance is under its floor (which one is in the gateway log, not the answer)',
      schema: HealthAnswer,
    },
  },
  handler: async (request, { clients, reply }) => {
    const h = await clients.certificates.health({}, { idempotent: true, deadlineMs: 3000 }).catch(() => ({
      database: false,
      chain: false,
      relayer_low: false,
      relayer_balance_wei: undefined,
    }));
    // A relayer under HALLMARK_RELAYER_BALANCE_FLOOR_WEI soon cannot pay for mints: degraded.
    const ok = h.database && h.chain && !h.relayer_low;
    if (!ok)
      request.log.warn(
        {
          database: h.database ? 'ok' : 'unreachable',
          chain: h.chain ? 'ok' : 'unreachable',
          relayer: h.relayer_low ? 'low' : 'ok',
        },
        'certificates health: degraded',
      );
    reply.status(ok ? 200 : 503).header('cache-control', 'no-store');
    return { status: ok ? 'ok' : 'degraded', timestamp: new Date().toISOString() };
  },
});
