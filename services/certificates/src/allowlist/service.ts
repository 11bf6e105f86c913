// The allowlist use cases behind AllowlistService: request an address, check it (the chain's
// answer for anyone, the entry only for an enterprise that asked), and wait for it to be final.
import { notFound } from '@hallmark/kit';
import type { CertificatesContract } from '../chain/contract.js';
import type { Scope } from '../domain/certificate.js';
import { isFinal, parseAddress, parseWaitMs, type AllowlistEntryRecord } from './domain.js';
import type { AllowlistStore } from './store.js';

export interface AllowlistServiceDeps {
  store: AllowlistStore;
  /** The contract (isAllowlisted), when the service runs with a chain. */
  contract: () => CertificatesContract | null;
  /** Called after an address was queued, so the worker sends it at once. */
  onRequested?: () => void;
  /** Poll interval of the wait (ms). */
  pollMs?: number;
}

/** An address's entry as this enterprise may see it, and the chain's answer (null: unknown). */
export interface AllowlistView {
  address: string;
  entry: AllowlistEntryRecord | null;
  onChain: boolean | null;
}

export class AllowlistService {
  constructor(private readonly deps: AllowlistServiceDeps) {}

  /** Queues the address for the enterprise (a failed one again) and wakes the writer. */
  async request(scope: Scope, rawAddress: string | undefined): Promise<AllowlistView> {
    const address = parseAddress(rawAddress);
    const entry = await this.deps.store.request(address, scope.enterpriseId);
    if (entry.status === 'pending') this.deps.onRequested?.();
    return { address, entry, onChain: null };
  }

  // The chain's answer is public; the entry (status, error, retries, transaction) is shown
  // only to an enterprise that asked for the address. To anyone else it is "not requested".
  async check(scope: Scope, rawAddress: string | undefined): Promise<AllowlistView> {
    const address = parseAddress(rawAddress);
    const [entry, onChain] = await Promise.all([
      this.deps.store.getFor(address, scope.enterpriseId),
      this.onChain(address),
    ]);
    return { address, entry, onChain };
  }

  /**
   * Waits (bounded by `timeoutMs`, see parseWaitMs) until the enterprise's entry is final;
   * an address the enterprise never asked for is not found.
   */
  async waitForConfirmation(
    scope: Scope,
    rawAddress: string | undefined,
    timeoutMs: number | undefined,
  ): Promise<AllowlistView & { entry: AllowlistEntryRecord; timedOut: boolean }> {
    const { store } = this.deps;
    const address = parseAddress(rawAddress);
    const deadline = Date.now() + parseWaitMs(timeoutMs);
    let entry = await store.getFor(address, scope.enterpriseId);
    if (!entry) throw notFound('allowlist entry', address);
    while (!isFinal(entry.status) && Date.now() < deadline) {
      await new Promise((resolve) =>
        setTimeout(resolve, Math.min(this.deps.pollMs ?? 200, Math.max(0, deadline - Date.now()))),
      );
      entry = (await store.getFor(address, scope.enterpriseId)) ?? entry;
    }
    return { address, entry, onChain: await this.onChain(address), timedOut: !isFinal(entry.status) };
  }

  private async onChain(address: string): Promise<boolean | null> {
    const contract = this.deps.contract();
    if (!contract) return null;
    try {
      return await contract.isAllowlisted(address);
    } catch {
      return null;
    }
  }
}
