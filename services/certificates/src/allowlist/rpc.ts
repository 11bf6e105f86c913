// AllowlistService handlers: proto <-> domain, and the bounded wait of
// WaitForAllowlistConfirmation.
import { notFound, type AsyncHandlers } from '@hallmark/kit';
import type { AllowlistEntry, AllowlistServiceServer } from '@hallmark/proto/certificates/v1/allowlist';
import type { CertificatesContract } from '../chain/contract.js';
import { scopeOf } from '../rpc.js';
import { isFinal, parseAddress, parseWaitMs, type AllowlistEntryRecord } from './domain.js';
import type { AllowlistStore } from './store.js';

export interface AllowlistHandlerDeps {
  store: AllowlistStore;
  /** The contract (isAllowlisted), when the service runs with a chain. */
  contract: () => CertificatesContract | null;
  /** Called after an address was queued, so the worker sends it at once. */
  onRequested?: () => void;
  /** Poll interval of the wait (ms). */
  pollMs?: number;
}

function toProto(address: string, e: AllowlistEntryRecord | null, onChain: boolean | null): AllowlistEntry {
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

export function createAllowlistHandlers(deps: AllowlistHandlerDeps): AsyncHandlers<AllowlistServiceServer> {
  const { store } = deps;

  async function onChain(address: string): Promise<boolean | null> {
    const contract = deps.contract();
    if (!contract) return null;
    try {
      return await contract.isAllowlisted(address);
    } catch {
      return null;
    }
  }

  return {
    async addToAllowlist(req) {
      const scope = scopeOf(req.principal);
      const address = parseAddress(req.address);
      const entry = await store.request(address, scope.enterpriseId);
      if (entry.status === 'pending') deps.onRequested?.();
      return toProto(address, entry, null);
    },

    // The chain's answer is public; the entry (status, error, retries, transaction) is shown
    // only to an enterprise that asked for the address. To anyone else it is "not requested".
    async checkAllowlist(req) {
      const scope = scopeOf(req.principal);
      const address = parseAddress(req.address);
      const [entry, chain] = await Promise.all([store.getFor(address, scope.enterpriseId), onChain(address)]);
      return toProto(address, entry, chain);
    },

    async waitForAllowlistConfirmation(req) {
      const scope = scopeOf(req.principal);
      const address = parseAddress(req.address);
      const waitMs = parseWaitMs(req.timeout_ms);
      const deadline = Date.now() + waitMs;
      let entry = await store.getFor(address, scope.enterpriseId);
      if (!entry) throw notFound('allowlist entry', address);
      while (!isFinal(entry.status) && Date.now() < deadline) {
        await new Promise((resolve) =>
          setTimeout(resolve, Math.min(deps.pollMs ?? 200, Math.max(0, deadline - Date.now()))),
        );
        entry = (await store.getFor(address, scope.enterpriseId)) ?? entry;
      }
      return { ...toProto(address, entry, await onChain(address)), timed_out: !isFinal(entry.status) };
    },
  };
}
