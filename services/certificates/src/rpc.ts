// gRPC handlers: proto <-> domain, nothing else.
import { HallmarkError, invalidParam, missingParam, type AsyncHandlers } from '@hallmark/kit';
import type {
  Certificate,
  CertificatesServiceServer,
  ProvenanceEntry,
} from '@hallmark/proto/certificates/v1/certificates';
import type { Principal } from '@hallmark/proto/common/v1/common';
import type { JsonRpcProvider } from 'ethers';
import { metadataView, parseMintBatch, type ProvenanceRecord, type Scope } from './domain/certificate.js';
import type { CertificateRead, CertificatesStore } from './store.js';
import type { TransferService } from './transfers/service.js';
import { ensureWalletOf, walletToProto } from './wallets/rpc.js';
import type { WalletStore } from './wallets/store.js';

export function scopeOf(p: Principal | undefined): Scope {
  if (!p?.enterprise_id) throw missingParam('principal');
  return { enterpriseId: p.enterprise_id, livemode: p.livemode, actorId: p.actor_id };
}

export function provenanceToProto(p: ProvenanceRecord): ProvenanceEntry {
  return {
    kind: p.kind,
    actor: p.actor ?? undefined,
    from: p.from ?? undefined,
    to: p.to ?? undefined,
    transaction_hash: p.transactionHash ?? undefined,
    block_number: p.blockNumber ?? undefined,
    at: p.at.toISOString(),
  };
}

export function toProto({ certificate: c, provenance }: CertificateRead): Certificate {
  return {
    id: c.id,
    token_id: c.tokenId === null ? undefined : Number(c.tokenId),
    name: c.name,
    image_url: c.imageUrl ?? undefined,
    metadata_json: JSON.stringify(metadataView(c)),
    metadata_hash: c.metadataHash,
    batch_id: c.batchId,
    holder_address: c.holderAddress,
    status: c.status,
    transaction_hash: c.transactionHash ?? undefined,
    block_number: c.blockNumber ?? undefined,
    created_at: c.createdAt.toISOString(),
    updated_at: c.updatedAt.toISOString(),
    provenance: provenance.map(provenanceToProto),
    livemode: c.livemode,
  };
}

export interface HandlerDeps {
  store: CertificatesStore;
  /** The chain, when configured (health reads its latest block). */
  provider: JsonRpcProvider | null;
  /** Called after a batch was recorded, so the mint worker starts on it at once. */
  onBatchRecorded?: () => void;
  /** Bound on the chain probe of Health. */
  chainProbeTimeoutMs?: number;
  /** Custodial wallets (EnsureWallet, MintBatch holder_account); unset: those answer unavailable. */
  wallets?: WalletStore;
  /** Transfers by the holder's signature; unset: Transfer answers unavailable. */
  transfers?: TransferService;
  /** How often GetMintBatch looks at a pending batch while it waits (default 150 ms). */
  batchPollMs?: number;
}

/** GetMintBatch waits at most this long, whatever wait_ms asks (proto contract). */
export const MAX_BATCH_WAIT_MS = 30_000;
/** Left of the caller's deadline for reading and answering the batch after a wait. */
const ANSWER_MARGIN_MS = 500;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function unavailable(what: string): HallmarkError {
  return new HallmarkError('service_unavailable', { message: `${what} is not available.` });
}

export function createCertificatesHandlers(deps: HandlerDeps): AsyncHandlers<CertificatesServiceServer> {
  const { store } = deps;
  return {
    async mintBatch(req) {
      const scope = scopeOf(req.principal);
      let holderAddress = req.holder_address;
      if (req.holder_account) {
        if (holderAddress) {
          throw invalidParam('holder_account', 'Give either holder_address or holder_account, not both.');
        }
        if (!deps.wallets) throw unavailable('Custodial wallets');
        holderAddress = (await ensureWalletOf(deps.wallets, scope, req.holder_account, 'holder_account'))
          .wallet.address;
      }
      const input = parseMintBatch({
        idempotencyKey: req.idempotency_key,
        holderAddress,
        items: req.items,
      });
      const batch = await store.createBatch(scope, input);
      if (!batch.replayed || batch.status === 'pending') deps.onBatchRecorded?.();
      return {
        batch_id: batch.batchId,
        status: batch.status,
        certificates: batch.certificates.map(toProto),
        replayed: batch.replayed,
      };
    },

    async getMintBatch(req, call) {
      const scope = scopeOf(req.principal);
      if (!req.batch_id) throw missingParam('batch_id');
      if (!Number.isInteger(req.wait_ms) || req.wait_ms < 0) {
        throw invalidParam('wait_ms', 'wait_ms must be a non-negative number of milliseconds.');
      }
      // Polls the batch's status (one indexed read) while it is pending: the confirmation is
      // written by whichever replica holds the relayer's lock, so a database read is what
      // every replica can see.
      const until =
        Date.now() +
        Math.max(0, Math.min(req.wait_ms, MAX_BATCH_WAIT_MS, call.deadlineMs - ANSWER_MARGIN_MS));
      let status = await store.batchStatus(scope, req.batch_id);
      while (status === 'pending' && Date.now() < until) {
        await sleep(Math.min(deps.batchPollMs ?? 150, until - Date.now()));
        status = await store.batchStatus(scope, req.batch_id);
      }
      if (req.status_only) return { batch_id: req.batch_id, status, certificates: [], replayed: false };
      const batch = await store.readBatch(req.batch_id);
      return {
        batch_id: batch.batchId,
        status: batch.status,
        certificates: batch.certificates.map(toProto),
        replayed: false,
      };
    },

    async getCertificate(req) {
      return toProto(await store.get(scopeOf(req.principal), req.certificate_id));
    },

    async getPublicCertificate(req) {
      return toProto(await store.getPublic(req.certificate_id));
    },

    async listProvenance(req) {
      const read = await store.get(scopeOf(req.principal), req.certificate_id);
      return { entries: read.provenance.map(provenanceToProto) };
    },

    async ensureWallet(req) {
      const scope = scopeOf(req.principal);
      if (!deps.wallets) throw unavailable('Custodial wallets');
      return walletToProto(await ensureWalletOf(deps.wallets, scope, req.owner, 'owner'));
    },

    async transfer(req) {
      const scope = scopeOf(req.principal);
      if (!deps.transfers) throw unavailable('Transfer');
      const {
        transfer: t,
        certificate,
        replayed,
      } = await deps.transfers.transfer(scope, {
        certificateId: req.certificate_id,
        idempotencyKey: req.idempotency_key,
        toUserId: req.to_user_id,
        toAddress: req.to_address,
      });
      return {
        status: t.status,
        certificate: toProto(certificate),
        from_address: t.from_address,
        to_address: t.to_address,
        transaction_hash: t.tx_hash ?? undefined,
        block_number: t.block_number === null ? undefined : Number(t.block_number),
        replayed,
      };
    },

    async health() {
      const [database, block] = await Promise.all([store.databaseHealthy(), latestBlock(deps)]);
      return { database, chain: block !== null, block_number: block ?? undefined };
    },
  };
}

async function latestBlock(deps: HandlerDeps): Promise<number | null> {
  if (!deps.provider) return null;
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      deps.provider.getBlockNumber(),
      new Promise<null>((resolve) => {
        timer = setTimeout(() => resolve(null), deps.chainProbeTimeoutMs ?? 2000);
      }),
    ]);
  } catch {
    return null;
  } finally {
    clearTimeout(timer);
  }
}
