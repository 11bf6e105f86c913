// Request an address, check it, wait for its confirmation.
import type { Access } from '../../endpoint/define.js';
import { defineEndpoint } from '../../endpoint/define.js';
import { bool, closed, Type } from '../../endpoint/schema.js';
import { principalOf } from '../shared.js';
import { entryWith, presentAllowlistEntry } from './entry.js';

const TAGS = ['Allowlist'];
const READ: Access = { auth: 'either', scope: 'users.read' };
const UPDATE: Access = { auth: 'either', scope: 'users.update', rateGroup: 'allowlist_write' };
const MAX_WAIT_MS = 30_000;

const address = Type.String({ minLength: 1, maxLength: 64, description: '0x-prefixed 20-byte address' });
const Entry = entryWith({});

export const addToAllowlist = defineEndpoint({
  method: 'POST',
  url: '/api/v1/allowlist',
  operationId: 'addToAllowlist',
  tags: TAGS,
  summary: 'Request an address on the contract allowlist (added in batches by a worker)',
  description:
    'Needs users.update; at most 60 requests an hour per key (per enterprise for sessions). The caller ' +
    'becomes a requester of the address and sees its request details from then on.',
  access: UPDATE,
  body: closed({ address }),
  responses: {
    200: { description: 'The address is already confirmed (or failed)', schema: Entry },
    202: { description: 'The address is queued (status pending)', schema: Entry },
  },
  handler: async (request, { clients, reply }) => {
    const e = await clients.allowlist.addToAllowlist({
      principal: principalOf(request),
      address: request.body.address,
    });
    if (e.status === 'pending') reply.status(202);
    return presentAllowlistEntry(e);
  },
});

export const checkAllowlist = defineEndpoint({
  method: 'GET',
  url: '/api/v1/allowlist/check/:address',
  operationId: 'checkAllowlist',
  tags: TAGS,
  summary: 'Allowlist status of an address and whether the chain has it',
  description:
    '`onChain` is public. The request details (allowlistStatus, allowlistError, lastAllowlistAttempt, ' +
    'allowlistRetryCount, transactionHash, blockNumber) are shown only to an enterprise that requested the ' +
    'address; to any other caller the address reads as `requested: false`.',
  access: READ,
  params: closed({ address }),
  responses: {
    200: {
      description:
        '`onChain` for anyone; the request details only to an enterprise that requested the address',
      schema: entryWith({ requested: bool }),
    },
  },
  handler: async (request, { clients }) => {
    const e = await clients.allowlist.checkAllowlist(
      { principal: principalOf(request), address: request.params.address },
      { idempotent: true },
    );
    return { ...presentAllowlistEntry(e), requested: e.requested };
  },
});

export const waitForAllowlistConfirmation = defineEndpoint({
  method: 'POST',
  url: '/api/v1/allowlist/wait-for-confirmation',
  operationId: 'waitForAllowlistConfirmation',
  tags: TAGS,
  summary: 'Wait (at most timeoutMs, ≤ 30,000) for the chain confirmation of an address',
  description: 'Only for an address the caller’s enterprise requested; any other address is 404.',
  access: READ,
  body: closed({
    address,
    timeoutMs: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_WAIT_MS, default: 10_000 })),
  }),
  responses: {
    200: {
      description: 'The entry once confirmed, failed or when the wait ran out',
      schema: entryWith({ confirmed: bool, timedOut: bool }),
    },
  },
  handler: async (request, { clients }) => {
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
});
