// The certificate use cases behind CertificatesService: minting a batch (to an address or a
// custodial account), waiting for a batch, reads, custodial wallets, transfers and health.
// rpc.ts maps proto to these calls; SQL lives in store.ts and the slices' stores.
import { HallmarkError, invalidParam, missingParam } from '@hallmark/kit';
import type { WalletOwner } from '@hallmark/proto/certificates/v1/certificates';
import type { JsonRpcProvider } from 'ethers';
import { buildBatchTree } from './chain/batch-tree.js';
import { batchModeOf } from './chain-settings/store.js';
import { parseMintBatch, type BatchStatus, type RawMintItem, type Scope } from './domain/certificate.js';
import type { BatchRead, CertificateRead, CertificatesStore, MintedRefRecord } from './store.js';
import type { TransferRequestInput, TransferResult, TransferService } from './transfers/service.js';
import { parseWalletOwner, type EnsuredWallet, type WalletStore } from './wallets/store.js';

export interface CertificateServiceDeps {
  store: CertificatesStore;
  /** The chain, when configured (health reads its latest block). */
  provider: JsonRpcProvider | null;
  /** Called after a batch was recorded, so the mint worker starts on it at once. */
  onBatchRecorded?: () => void;
  /** Bound on the chain probe of Health. */
  chainProbeTimeoutMs?: number;
  /**
   * The relayer's signers (every mint signer: each pays its own gas, so Health reads each
   * balance) and the floor under which one is low.
   */
  relayer?: { addresses: string[]; floorWei: bigint };
  /** Custodial wallets (EnsureWallet, MintBatch holder_account); unset: those answer unavailable. */
  wallets?: WalletStore;
  /** Transfers by the holder's signature; unset: Transfer answers unavailable. */
  transfers?: TransferService;
  /** How often GetMintBatch looks at a pending batch while it waits (default 150 ms). */
  batchPollMs?: number;
}

export interface MintBatchRequest {
  idempotencyKey?: string;
  holderAddress?: string;
  holderAccount?: WalletOwner;
  items?: RawMintItem[];
}

/** GetMintBatch waits at most this long, whatever wait_ms asks (proto contract). */
const MAX_BATCH_WAIT_MS = 30_000;
/** Left of the caller's deadline for reading and answering the batch after a wait. */
const ANSWER_MARGIN_MS = 500;

/** Ids one GetPublicCertificates call may ask for (the gateway's batches are at most this). */
export const MAX_PUBLIC_READS = 100;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function unavailable(what: string): HallmarkError {
  return new HallmarkError('service_unavailable', { message: `${what} is not available.` });
}

export class CertificateService {
  constructor(private readonly deps: CertificateServiceDeps) {}

  /** Records a batch (or answers the one recorded under its key) and wakes the mint worker. */
  async mintBatch(scope: Scope, req: MintBatchRequest): Promise<BatchRead> {
    let holderAddress = req.holderAddress;
    if (req.holderAccount) {
      if (holderAddress) {
        throw invalidParam('holder_account', 'Give either holder_address or holder_account, not both.');
      }
      holderAddress = (await this.ensureWallet(scope, req.holderAccount, 'holder_account')).wallet.address;
    }
    const input = parseMintBatch({ idempotencyKey: req.idempotencyKey, holderAddress, items: req.items });
    // The root the contract anchors: built here, as the contract checks it, so the store only writes.
    const { root } = buildBatchTree(input.items.map((i) => i.metadataHash));
    // the batch's events: its enterprise's chain settings now (null: the deployment default)
    const transferEvents = await batchModeOf(this.deps.store.pool, scope.enterpriseId);
    const batch = await this.deps.store.createBatch(scope, input, root, transferEvents);
    if (!batch.replayed || batch.status === 'pending') this.deps.onBatchRecorded?.();
    return batch;
  }

  /**
   * The batch's status after waiting while it is pending, at most min(waitMs,
   * MAX_BATCH_WAIT_MS, the caller's deadline − ANSWER_MARGIN_MS). Polls the status (one indexed
   * read): the confirmation is written by whichever replica holds the relayer's lock, so a
   * database read is what every replica can see.
   */
  async waitForBatch(
    scope: Scope,
    batchId: string,
    waitMs: number,
    deadlineMs: number,
  ): Promise<BatchStatus> {
    if (!batchId) throw missingParam('batch_id');
    if (!Number.isInteger(waitMs) || waitMs < 0) {
      throw invalidParam('wait_ms', 'wait_ms must be a non-negative number of milliseconds.');
    }
    const { store } = this.deps;
    const until =
      Date.now() + Math.max(0, Math.min(waitMs, MAX_BATCH_WAIT_MS, deadlineMs - ANSWER_MARGIN_MS));
    let status = await store.batchStatus(scope, batchId);
    while (status === 'pending' && Date.now() < until) {
      await sleep(Math.min(this.deps.batchPollMs ?? 150, until - Date.now()));
      status = await store.batchStatus(scope, batchId);
    }
    return status;
  }

  /** A batch with its certificates (after `waitForBatch` checked its scope). */
  readBatch(batchId: string): Promise<Omit<BatchRead, 'replayed'>> {
    return this.deps.store.readBatch(batchId);
  }

  /** A batch's certificates by id and chain references (after `waitForBatch` checked its scope). */
  batchRefs(batchId: string): Promise<MintedRefRecord[]> {
    return this.deps.store.batchRefs(batchId);
  }

  get(scope: Scope, certificateId: string): Promise<CertificateRead> {
    return this.deps.store.get(scope, certificateId);
  }

  getPublic(certificateId: string): Promise<CertificateRead> {
    return this.deps.store.getPublic(certificateId);
  }

  /** Public reads of up to MAX_PUBLIC_READS ids at once; the unknown ones are absent. */
  getPublicMany(certificateIds: string[]): Promise<CertificateRead[]> {
    if (certificateIds.length > MAX_PUBLIC_READS) {
      throw invalidParam('certificate_ids', `At most ${MAX_PUBLIC_READS} certificate ids per call.`);
    }
    return this.deps.store.getPublicMany(certificateIds);
  }

  /** The custodial wallet of an owner reference of the scope's enterprise, created if needed. */
  ensureWallet(scope: Scope, owner: WalletOwner | undefined, param = 'owner'): Promise<EnsuredWallet> {
    if (!this.deps.wallets) throw unavailable('Custodial wallets');
    const o = parseWalletOwner(scope.enterpriseId, owner, param);
    return this.deps.wallets.ensure(scope.enterpriseId, o.kind, o.id);
  }

  transfer(scope: Scope, req: TransferRequestInput): Promise<TransferResult> {
    if (!this.deps.transfers) throw unavailable('Transfer');
    return this.deps.transfers.transfer(scope, req);
  }

  async health(): Promise<{
    database: boolean;
    block: number | null;
    relayerBalanceWei: bigint | null;
    relayerLow: boolean;
  }> {
    const { provider, relayer } = this.deps;
    const [database, block, balances] = await Promise.all([
      this.deps.store.databaseHealthy(),
      this.probe(() => provider!.getBlockNumber()),
      Promise.all((relayer?.addresses ?? []).map((a) => this.probe(() => provider!.getBalance(a)))),
    ]);
    // The lowest balance the chain answered: the signer that runs dry first. Unknown balances
    // (chain down) are reported by `chain`, not as low funds.
    const known = balances.filter((b): b is bigint => b !== null);
    const lowest = known.length ? known.reduce((a, b) => (b < a ? b : a)) : null;
    const relayerLow = !!relayer && lowest !== null && lowest < relayer.floorWei;
    return { database, block, relayerBalanceWei: lowest, relayerLow };
  }

  private async probe<T>(read: () => Promise<T>): Promise<T | null> {
    const { provider } = this.deps;
    if (!provider) return null;
    let timer: NodeJS.Timeout | undefined;
    try {
      return await Promise.race([
        read(),
        new Promise<null>((resolve) => {
          timer = setTimeout(() => resolve(null), this.deps.chainProbeTimeoutMs ?? 2000);
        }),
      ]);
    } catch {
      return null;
    } finally {
      clearTimeout(timer);
    }
  }
}
