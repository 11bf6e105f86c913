// Transfers of certificates by their holder's signature: the custodial wallet holding the
// token signs an EIP-712 TransferPermit, the relayer submits transferWithPermit and pays gas.
//
// Life of a transfer (`certificate_transfers`, migrations 0301 and 0501): the Transfer RPC
// records it `pending` with its transfer key (idempotency) under a row lock of the
// certificate; the sending side (./workers/sender.ts, run by the mint worker's pass, so only the
// replica holding the relayer's advisory lock signs with the relayer's nonces) signs, persists
// (`signed`), broadcasts (`sent`), replaces a stuck transaction with higher fees, waits for
// HALLMARK_CHAIN_CONFIRMATIONS and records in one database transaction: `confirmed`, the
// certificate's new holder, a `transferred` provenance entry and certificate.transferred.
import { createHash } from 'node:crypto';
import {
  HallmarkError,
  invalidParam,
  isId,
  missingParam,
  notFound,
  transaction,
  type Logger,
  type Pool,
} from '@hallmark/kit';
import { getAddress, isAddress } from 'ethers';
import type { Scope } from '../domain/certificate.js';
import { certificateFromRow } from '../certificate-rows.js';
import { handoverRefused, type Handover } from '../domain/handover.js';
import { takeHandovers } from '../handover-store.js';
import type { CertificateRead, CertificatesStore } from '../store.js';
import type { WalletStore } from '../wallets/store.js';
import { TransferSender, type TransferChain } from './workers/sender.js';
import { OPEN, TransferStore, type TransferRow } from './store.js';

export type { TransferRow, TransferStatus } from './store.js';

export interface TransferRequestInput {
  /**
   * The voucher claim or gift this transfer completes (internal callers only): it moves the
   * certificate under that hand-over's hold. Absent (the Transfer RPC): the transfer is a
   * hand-over of its own, refused while a voucher, gift or other transfer holds the certificate.
   */
  handover?: Handover;
  certificateId?: string;
  idempotencyKey?: string;
  toUserId?: string;
  toAddress?: string;
  /**
   * Internal callers only (an import, ../ownership/): the holder's own signed TransferPermit.
   * The holder is then not a custodial wallet; the contract checks the signature.
   */
  permit?: { signature: string; deadline: bigint };
  /**
   * A brand recovery (the stolen slice, docs/lost-and-stolen.md): allowed while the
   * certificate is reported stolen, from any Hallmark custodial wallet (the holder need not be
   * the brand's), recorded with its reason; its confirmation records `recovered` provenance and
   * ends the open report.
   */
  recovery?: { reason: string };
}

export interface TransferResult {
  transfer: TransferRow;
  certificate: CertificateRead;
  replayed: boolean;
}

export interface TransferServiceOptions {
  pool: Pool;
  store: CertificatesStore;
  wallets: WalletStore;
  /** The chain side; null when the service runs without a chain (Transfer unavailable). */
  chain: () => TransferChain | null;
  log: Logger;
  /** Called after a transfer was recorded, so the sending worker starts on it at once. */
  onRecorded?: () => void;
  /** How long the Transfer RPC waits for the transfer to be final before answering `sent`. */
  waitMs?: number;
  /** How long one sending pass waits for a receipt. */
  receiptTimeoutMs?: number;
  /** How often a waiting pass looks for a receipt (default: the provider's polling interval). */
  pollMs?: number;
}

function parseRequest(req: TransferRequestInput) {
  const key = req.idempotencyKey ?? '';
  if (!key) throw missingParam('idempotency_key');
  if (key.length > 255)
    throw invalidParam('idempotency_key', 'idempotency_key must be at most 255 characters.');
  if (!req.certificateId) throw missingParam('certificate_id');
  if (!isId('certificate', req.certificateId)) throw notFound('certificate', req.certificateId);
  if (req.toUserId && req.toAddress) {
    throw invalidParam('to_address', 'Give either to_user_id or to_address, not both.');
  }
  if (!req.toUserId && !req.toAddress) throw missingParam('to_user_id');
  if (req.toUserId && !isId('user', req.toUserId))
    throw invalidParam('to_user_id', 'to_user_id must be a user id.');
  if (req.toAddress && (!isAddress(req.toAddress) || !/^0x[0-9a-fA-F]{40}$/.test(req.toAddress))) {
    throw invalidParam('to_address', 'to_address must be a 0x-prefixed 20-byte address.');
  }
  const toAddress = req.toAddress ? getAddress(req.toAddress) : null;
  // A recovery's key never replays a plain transfer (nor the other way round).
  const requestHash = createHash('sha256')
    .update(
      JSON.stringify([
        req.certificateId,
        req.toUserId ?? null,
        toAddress,
        ...(req.recovery ? ['recovery', req.recovery.reason] : []),
      ]),
    )
    .digest('hex');
  return {
    key,
    certificateId: req.certificateId,
    toUserId: req.toUserId ?? null,
    toAddress,
    requestHash,
    handover: req.handover ?? null,
    permit: req.permit ?? null,
    recovery: req.recovery ?? null,
  };
}

const refused = (message: string) =>
  new HallmarkError('validation_failed', { param: 'certificate_id', message });

export class TransferService {
  /** The sending side (exposed for crash tests). */
  readonly sender: TransferSender;
  private readonly transfers: TransferStore;

  constructor(private readonly opts: TransferServiceOptions) {
    this.transfers = new TransferStore(opts.pool);
    this.sender = new TransferSender({ ...opts, transfers: this.transfers });
  }

  /** The Transfer RPC: record (or find by key), let the worker send, wait a bounded time. */
  async transfer(scope: Scope, req: TransferRequestInput): Promise<TransferResult> {
    const requested = await this.request(scope, req);
    const { replayed } = requested;
    let { row } = requested;
    if (OPEN.includes(row.status)) row = await this.waitFinal(row.id);
    return { transfer: row, certificate: await this.opts.store.get(scope, row.certificate_id), replayed };
  }

  /** Records a transfer (or finds it by key) and wakes the sender, without waiting for it. */
  async request(scope: Scope, req: TransferRequestInput): Promise<{ row: TransferRow; replayed: boolean }> {
    if (!this.opts.chain())
      throw new HallmarkError('service_unavailable', { message: 'No chain is configured for transfers.' });
    const input = parseRequest(req);
    let row = await this.findByKey(scope, input.key, input.requestHash);
    const replayed = row !== null;
    if (!row) row = await this.record(scope, input);
    if (OPEN.includes(row.status)) this.opts.onRecorded?.();
    return { row, replayed };
  }

  private findByKey(scope: Scope, key: string, requestHash: string): Promise<TransferRow | null> {
    return this.transfers.byKey(scope, key, requestHash);
  }

  private async record(scope: Scope, input: ReturnType<typeof parseRequest>): Promise<TransferRow> {
    const { wallets } = this.opts;
    const to =
      input.toAddress ?? (await wallets.ensure(scope.enterpriseId, 'user', input.toUserId!)).wallet.address;
    try {
      return await transaction(this.opts.pool, async (tx) => {
        const locked = await this.transfers.lockCertificate(tx, scope, input.certificateId);
        if (!locked) throw notFound('certificate', input.certificateId);
        const cert = certificateFromRow(locked);
        if (cert.status !== 'minted' || cert.tokenId === null) {
          throw refused(`Only a minted certificate can be transferred (this one is ${cert.status}).`);
        }
        const holder = await wallets.byAddress(cert.holderAddress);
        if (input.recovery) {
          // Without a contract change Hallmark can only sign for wallets it holds the key of.
          if (!holder) {
            throw refused(
              `The certificate is held by a self-custody wallet (${cert.holderAddress}); Hallmark ` +
                'holds no key for it, so it cannot be recovered without its holder.',
            );
          }
        } else if (input.permit) {
          if (holder)
            throw refused('The certificate is already in custody; only a held-outside one is imported.');
        } else if (!holder || holder.enterpriseId !== scope.enterpriseId) {
          throw refused('The certificate is not held by a custodial wallet of this enterprise.');
        }
        if (getAddress(to) === getAddress(cert.holderAddress)) {
          throw invalidParam(
            input.toAddress ? 'to_address' : 'to_user_id',
            'The certificate is already held there.',
          );
        }
        const row = await this.transfers.insert(tx, scope, {
          key: input.key,
          requestHash: input.requestHash,
          certificateId: cert.id,
          tokenId: cert.tokenId.toString(),
          from: cert.holderAddress,
          to,
          toUserId: input.toUserId,
          actorId: scope.actorId || null,
          permit: input.permit,
          purpose: input.recovery ? 'recovery' : 'transfer',
          reason: input.recovery?.reason ?? null,
        });
        // The hand-over hold (docs/security.md › Hand-over exclusivity), released when the
        // transfer confirms or fails; a claim's transfer runs under its voucher's or gift's.
        const own = input.handover ?? { kind: 'transfer' as const, id: row.id };
        const blocked = await takeHandovers(
          tx,
          own.kind,
          [{ certificateId: cert.id, id: own.id, until: null }],
          {
            evenIfReportedStolen: input.recovery !== null,
            param: 'certificate_id',
            doing: 'it cannot be transferred',
          },
        );
        if (blocked.size > 0) {
          throw handoverRefused(cert.id, blocked.get(cert.id) ?? null, {
            param: 'certificate_id',
            showId: true,
            doing: 'it cannot be transferred',
          });
        }
        return row;
      });
    } catch (err) {
      const constraint = (err as { constraint?: string }).constraint;
      if (constraint === 'certificate_transfers_key') {
        const raced = await this.findByKey(scope, input.key, input.requestHash);
        if (raced) return raced;
      }
      if (constraint === 'certificate_transfers_open') {
        throw refused('A transfer of this certificate is already in flight.');
      }
      throw err;
    }
  }

  private async waitFinal(id: string): Promise<TransferRow> {
    const until = Date.now() + (this.opts.waitMs ?? 15_000);
    for (;;) {
      const row = await this.byId(id);
      if (!OPEN.includes(row.status) || Date.now() >= until) return row;
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  byId(id: string): Promise<TransferRow> {
    return this.transfers.byId(id);
  }

  /**
   * One sending pass over the open transfers, oldest first (run only where the relayer's
   * nonces are used: the mint worker's pass). Returns how many reached a final state.
   */
  async processOpen(limit = 50): Promise<number> {
    if (!this.opts.chain()) return 0;
    let done = 0;
    for (const row of await this.sender.open(limit)) {
      try {
        if (await this.sender.drive(row)) done++;
      } catch (err) {
        this.opts.log.warn({ err, transfer: row.id }, 'transfers: not completed; will retry');
        await this.transfers.noteError(row.id, String((err as Error)?.message ?? err)).catch(() => undefined);
      }
    }
    return done;
  }
}
