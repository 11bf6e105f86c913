// /api/v1/allowlist: the contract allowlist (spec › Allowlist status, Endpoints › Allowlist).
// Scopes: users.update to request an address (rate group allowlist_write: each address costs
// the relayer gas), users.read to check it or wait for it. Whether the chain has an address
// is public; the request's details (status, error, retries, transaction) are shown only to
// an enterprise that asked for it (to others: `requested: false`, and 404 on the wait).
// Fields follow the spec's user fields (allowlistStatus, allowlistError,
// lastAllowlistAttempt, allowlistRetryCount). An invalid address is a 400 with param `address`.
import type { AllowlistEntry } from '@hallmark/proto/certificates/v1/allowlist';
import type { FastifyInstance } from 'fastify';
import { principalOf, type RouteDeps } from '../shared.js';

const TAGS = ['Allowlist'];
const READ = { auth: 'either' as const, scope: 'users.read' };
const UPDATE = { auth: 'either' as const, scope: 'users.update', rateGroup: 'allowlist_write' as const };
const MAX_WAIT_MS = 30_000;

const address = { type: 'string', minLength: 1, maxLength: 64, description: '0x-prefixed 20-byte address' };

function presentAllowlistEntry(e: AllowlistEntry) {
  return {
    address: e.address,
    allowlistStatus: e.status ?? null,
    allowlistError: e.error ?? null,
    lastAllowlistAttempt: e.last_attempt ?? null,
    allowlistRetryCount: e.retry_count,
    transactionHash: e.transaction_hash ?? null,
    blockNumber: e.block_number ?? null,
    onChain: e.on_chain ?? null,
  };
}

export default async function allowlist(app: FastifyInstance, { clients }: RouteDeps) {
  app.post<{ Body: { address: string } }>(
    '/api/v1/allowlist',
    {
      config: UPDATE,
      schema: {
        tags: TAGS,
        summary: 'Request an address on the contract allowlist (added in batches by a worker)',
        description:
          'Needs users.update; at most 60 requests an hour per key (per enterprise for sessions). The caller ' +
          'becomes a requester of the address and sees its request details from then on.',
        body: { type: 'object', required: ['address'], additionalProperties: false, properties: { address } },
      },
    },
    async (request, reply) => {
      const e = await clients.allowlist.addToAllowlist({
        principal: principalOf(request),
        address: request.body.address,
      });
      return reply.status(e.status === 'pending' ? 202 : 200).send(presentAllowlistEntry(e));
    },
  );

  app.get<{ Params: { address: string } }>(
    '/api/v1/allowlist/check/:address',
    {
      config: READ,
      schema: {
        tags: TAGS,
        summary: 'Allowlist status of an address and whether the chain has it',
        description:
          '`onChain` is public. The request details (allowlistStatus, allowlistError, lastAllowlistAttempt, ' +
          'allowlistRetryCount, transactionHash, blockNumber) are shown only to an enterprise that requested the ' +
          'address; to any other caller the address reads as `requested: false`.',
        params: {
          type: 'object',
          required: ['address'],
          additionalProperties: false,
          properties: { address },
        },
      },
    },
    async (request) => {
      const e = await clients.allowlist.checkAllowlist(
        { principal: principalOf(request), address: request.params.address },
        { idempotent: true },
      );
      return { ...presentAllowlistEntry(e), requested: e.requested };
    },
  );

  app.post<{ Body: { address: string; timeoutMs?: number } }>(
    '/api/v1/allowlist/wait-for-confirmation',
    {
      config: READ,
      schema: {
        tags: TAGS,
        summary: 'Wait (at most timeoutMs, ≤ 30,000) for the chain confirmation of an address',
        description: 'Only for an address the caller’s enterprise requested; any other address is 404.',
        body: {
          type: 'object',
          required: ['address'],
          additionalProperties: false,
          properties: {
            address,
            timeoutMs: { type: 'integer', minimum: 0, maximum: MAX_WAIT_MS, default: 10_000 },
          },
        },
      },
    },
    async (request) => {
      const timeoutMs = request.body.timeoutMs ?? 10_000;
      const e = await clients.allowlist.waitForAllowlistConfirmation(
        { principal: principalOf(request), address: request.body.address, timeout_ms: timeoutMs },
        { idempotent: true, deadlineMs: timeoutMs + 5000 },
      );
      return {
        ...presentAllowlistEntry(e),
        confirmed: e.status === 'success' && e.on_chain !== false,
        timedOut: e.timed_out,
      };
    },
  );
}
