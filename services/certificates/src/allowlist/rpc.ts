// AllowlistService handlers: proto <-> service calls, nothing else.
import { scopeOf, type AsyncHandlers } from '@hallmark/kit';
import type { AllowlistEntry, AllowlistServiceServer } from '@hallmark/proto/certificates/v1/allowlist';
import { AllowlistService, type AllowlistServiceDeps, type AllowlistView } from './service.js';

function toProto({ address, entry: e, onChain }: AllowlistView): AllowlistEntry {
  return {
    address,
    requested: e !== null,
    status: e?.status,
    error: e?.error ?? undefined,
    last_attempt: e?.lastAttempt?.toISOString(),
    retry_count: e?.retryCount ?? 0,
    transaction_hash: e?.transactionHash ?? undefined,
    block_number: e?.blockNumber ?? undefined,
    on_chain: onChain ?? undefined,
    timed_out: false,
    created_at: e?.createdAt.toISOString() ?? '',
    updated_at: e?.updatedAt.toISOString() ?? '',
  };
}

/** The handlers over an AllowlistService built from `deps`. */
export function createAllowlistHandlers(deps: AllowlistServiceDeps): AsyncHandlers<AllowlistServiceServer> {
  const service = new AllowlistService(deps);
  return {
    async addToAllowlist(req) {
      return toProto(await service.request(scopeOf(req.principal), req.address));
    },

    async checkAllowlist(req) {
      return toProto(await service.check(scopeOf(req.principal), req.address));
    },

    async waitForAllowlistConfirmation(req) {
      const r = await service.waitForConfirmation(scopeOf(req.principal), req.address, req.timeout_ms);
      return { ...toProto(r), timed_out: r.timedOut };
    },
  };
}
