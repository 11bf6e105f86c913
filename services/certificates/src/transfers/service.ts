// Transfers of certificates by their holder's signature: the custodial wallet holding the
// token signs an EIP-712 TransferPermit, the relayer submits transferWithPermit and pays gas.
//
// Life of a transfer (`certificate_transfers`, migration 0301): the Transfer RPC records it
// `pending` with its transfer key (idempotency) under a row lock of the certificate, then the
// sending side (`processOpen`, run by the mint worker's pass, so only the replica holding the
// relayer's advisory lock signs with the relayer's nonces) signs the permit and the
// transaction under the relayer's signer mutex, persists nonce, bytes and hash (`signed`),
// broadcasts (`sent`), waits for HALLMARK_CHAIN_CONFIRMATIONS and records in one database
// transaction: `confirmed`, the certificate's new holder, a `transferred` provenance entry and
// certificate.transferred. After a restart a `signed`/`sent` transfer the node knows is
// awaited, one it does not know is re-broadcast as the same bytes, one whose nonce went to
// another transaction is signed again (the token's permit nonce makes a signature usable once,
// so the token can never move twice for one transfer).
import { createHash } from 'node:crypto';
import {
  HallmarkError,
  invalidParam,
  isId,
  missingParam,
  notFound,
  recordEvents,
  transaction,
  type Logger,
  type Pool,
} from '@hallmark/kit';
import { getAddress, isAddress, Transaction, type JsonRpcProvider, type Wallet } from 'ethers';
import {
  certificatesInterface,
  CertificatesContract,
  permitDomain,
  signTransferPermit,
} from '../chain/contract.js';
import type { Relayer } from '../chain/relayer.js';
import type { Scope } from '../domain/certificate.js';
import {
  certificateEventObject,
  certificateFromRow,
  EVENT_SOURCE,
  type CertificateRead,
  type CertificateRow,
  type CertificatesStore,
} from '../store.js';
import type { WalletStore } from '../wallets/store.js';

export type TransferStatus = 'pending' | 'signed' | 'sent' | 'confirmed' | 'failed';
const OPEN: TransferStatus[] = ['pending', 'signed', 'sent'];
/** Lifetime of a TransferPermit signature. */
const PERMIT_TTL_SECONDS = 3600;

export interface TransferRow {
  id: string;
  enterprise_id: string;
  livemode: boolean;
  transfer_key: string;
  request_hash: string;
  certificate_id: string;
  token_id: string;
  from_address: string;
  to_address: string;
  to_user_id: string | null;
  actor_id: string | null;
  nonce: string | null;
  raw_tx: string | null;
  tx_hash: string | null;
  block_number: string | null;
  status: TransferStatus;
  last_error: string | null;
}

export interface TransferRequestInput {
  certificateId?: string;
  idempotencyKey?: string;
  toUserId?: string;
  toAddress?: string;
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
  chain: () => {
    relayer: Relayer;
    provider: JsonRpcProvider;
    signer: Wallet;
    chainId: bigint;
    confirmations: number;
  } | null;
  log: Logger;
  /** Called after a transfer was recorded, so the sending worker starts on it at once. */
  onRecorded?: () => void;
  /** How long the Transfer RPC waits for the transfer to be final before answering `sent`. */
  waitMs?: number;
  /** How long one sending pass waits for a receipt. */
  receiptTimeoutMs?: number;
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
  const requestHash = createHash('sha256')
    .update(JSON.stringify([req.certificateId, req.toUserId ?? null, toAddress]))
    .digest('hex');
  return { key, certificateId: req.certificateId, toUserId: req.toUserId ?? null, toAddress, requestHash };
}

const refused = (message: string) =>
  new HallmarkError('validation_failed', { param: 'certificate_id', message });

export class TransferService {
  constructor(private readonly opts: TransferServiceOptions) {}

  /** The Transfer RPC: record (or find by key), let the worker send, wait a bounded time. */
  async transfer(scope: Scope, req: TransferRequestInput): Promise<TransferResult> {
    const chain = this.opts.chain();
    if (!chain)
      throw new HallmarkError('service_unavailable', { message: 'No chain is configured for transfers.' });
    const input = parseRequest(req);
    let row = await this.findByKey(scope, input.key, input.requestHash);
    const replayed = row !== null;
    if (!row) row = await this.record(scope, input);
    if (OPEN.includes(row.status)) {
      this.opts.onRecorded?.();
      row = await this.waitFinal(row.id);
    }
    return { transfer: row, certificate: await this.opts.store.get(scope, row.certificate_id), replayed };
  }

  private async findByKey(scope: Scope, key: string, requestHash: string): Promise<TransferRow | null> {
    const { rows } = await this.opts.pool.query<TransferRow>(
      'SELECT * FROM certificate_transfers WHERE enterprise_id = $1 AND livemode = $2 AND transfer_key = $3',
      [scope.enterpriseId, scope.livemode, key],
    );
    if (!rows[0]) return null;
    if (rows[0].request_hash !== requestHash) {
      throw new HallmarkError('resource_already_exists', {
        param: 'idempotency_key',
        message: 'This idempotency key was used with a different request.',
      });
    }
    return rows[0];
  }

  private async record(scope: Scope, input: ReturnType<typeof parseRequest>): Promise<TransferRow> {
    const { wallets } = this.opts;
    const to =
      input.toAddress ?? (await wallets.ensure(scope.enterpriseId, 'user', input.toUserId!)).wallet.address;
    try {
      return await transaction(this.opts.pool, async (tx) => {
        const { rows } = await tx.query<CertificateRow>(
          'SELECT * FROM certificates WHERE id = $1 AND enterprise_id = $2 AND livemode = $3 FOR UPDATE',
          [input.certificateId, scope.enterpriseId, scope.livemode],
        );
        if (!rows[0]) throw notFound('certificate', input.certificateId);
        const cert = certificateFromRow(rows[0]);
        if (cert.status !== 'minted' || cert.tokenId === null) {
          throw refused(`Only a minted certificate can be transferred (this one is ${cert.status}).`);
        }
        const holder = await wallets.byAddress(cert.holderAddress);
        if (!holder || holder.enterpriseId !== scope.enterpriseId) {
          throw refused('The certificate is not held by a custodial wallet of this enterprise.');
        }
        if (getAddress(to) === getAddress(cert.holderAddress)) {
          throw invalidParam(
            input.toAddress ? 'to_address' : 'to_user_id',
            'The certificate is already held there.',
          );
        }
        const { rows: inserted } = await tx.query<TransferRow>(
          `INSERT INTO certificate_transfers (enterprise_id, livemode, transfer_key, request_hash, certificate_id,
             token_id, from_address, to_address, to_user_id, actor_id)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING *`,
          [
            scope.enterpriseId,
            scope.livemode,
            input.key,
            input.requestHash,
            cert.id,
            cert.tokenId.toString(),
            cert.holderAddress,
            to,
            input.toUserId,
            scope.actorId || null,
          ],
        );
        return inserted[0]!;
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

  async byId(id: string): Promise<TransferRow> {
    const { rows } = await this.opts.pool.query<TransferRow>(
      'SELECT * FROM certificate_transfers WHERE id = $1',
      [id],
    );
    return rows[0]!;
  }

  /**
   * One sending pass over the open transfers, oldest first (run only where the relayer's
   * nonces are used: the mint worker's pass). Returns how many reached a final state.
   */
  async processOpen(limit = 50): Promise<number> {
    if (!this.opts.chain()) return 0;
    const { rows } = await this.opts.pool.query<TransferRow>(
      `SELECT * FROM certificate_transfers WHERE status IN ('pending', 'signed', 'sent') ORDER BY id LIMIT $1`,
      [limit],
    );
    let done = 0;
    for (const row of rows) {
      try {
        if (await this.drive(row)) done++;
      } catch (err) {
        this.opts.log.warn({ err, transfer: row.id }, 'transfers: not completed; will retry');
        await this.opts.pool
          .query('UPDATE certificate_transfers SET last_error = $2, updated_at = now() WHERE id = $1', [
            row.id,
            String((err as Error)?.message ?? err).slice(0, 1000),
          ])
          .catch(() => undefined);
      }
    }
    return done;
  }

  /** Brings one transfer as far as it goes; true when it became final. */
  private async drive(row: TransferRow): Promise<boolean> {
    const chain = this.opts.chain()!;
    let hash = row.tx_hash;
    if ((row.status === 'signed' || row.status === 'sent') && row.raw_tx && hash) {
      if (!(await chain.provider.getTransaction(hash))) hash = await this.rebroadcast(row);
    } else {
      hash = await this.send(row);
    }
    if (!hash) return true; // refused before sending: failed
    const receipt = await chain.provider.waitForTransaction(
      hash,
      chain.confirmations,
      this.opts.receiptTimeoutMs ?? 120_000,
    );
    if (!receipt) return false;
    if (receipt.status !== 1) {
      await this.fail(row.id, `transaction ${receipt.hash} reverted`, receipt.blockNumber);
      return true;
    }
    await this.confirm(row, receipt.hash, receipt.blockNumber, chain.relayer.address);
    return true;
  }

  /**
   * Signs the holder's TransferPermit and the relayer's transaction under the signer's mutex,
   * persists them (`signed`), broadcasts (`sent`). Null when the chain refuses the transfer
   * (e.g. the wallet no longer holds the token): the transfer is marked failed.
   */
  private send(row: TransferRow): Promise<string | null> {
    const chain = this.opts.chain()!;
    const contract = chain.relayer.contract;
    return chain.relayer.exclusive(async () => {
      const owner = getAddress(await contract.ownerOf(row.token_id));
      if (owner !== getAddress(row.from_address)) {
        await this.fail(row.id, `the token is held by ${owner}, not by ${row.from_address}`, null);
        return null;
      }
      const holder = await this.opts.wallets.signer(row.from_address);
      const deadline = BigInt(Math.floor(Date.now() / 1000) + PERMIT_TTL_SECONDS);
      const signature = await signTransferPermit(holder, permitDomain(chain.chainId, contract.address), {
        to: row.to_address,
        tokenId: row.token_id,
        nonce: await contract.nonces(row.token_id),
        deadline,
      });
      const data = certificatesInterface.encodeFunctionData('transferWithPermit', [
        row.to_address,
        row.token_id,
        deadline,
        signature,
      ]);
      const { provider, signer } = chain;
      let gas: bigint;
      try {
        gas = await provider.estimateGas({ from: signer.address, to: contract.address, data });
      } catch (err) {
        const reason = CertificatesContract.revertName(err);
        if (!reason) throw err;
        await this.fail(row.id, `refused by the contract: ${reason}`, null);
        return null;
      }
      const [nonce, fees] = await Promise.all([
        provider.getTransactionCount(signer.address, 'pending'),
        provider.getFeeData(),
      ]);
      const raw = await signer.signTransaction({
        type: 2,
        chainId: chain.chainId,
        to: contract.address,
        data,
        nonce,
        gasLimit: (gas * 12n) / 10n,
        maxFeePerGas: fees.maxFeePerGas,
        maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
      });
      const txHash = Transaction.from(raw).hash!;
      await this.opts.pool.query(
        `UPDATE certificate_transfers SET status = 'signed', signer = $2, nonce = $3, raw_tx = $4, tx_hash = $5,
           last_error = NULL, updated_at = now()
         WHERE id = $1 AND status IN ('pending', 'signed', 'sent')`,
        [row.id, signer.address, nonce, raw, txHash],
      );
      await provider.broadcastTransaction(raw);
      await this.opts.pool.query(
        `UPDATE certificate_transfers SET status = 'sent', updated_at = now() WHERE id = $1 AND status = 'signed'`,
        [row.id],
      );
      return txHash;
    });
  }

  /** Sends the persisted bytes again; signs anew when their nonce went to another transaction. */
  private async rebroadcast(row: TransferRow): Promise<string | null> {
    const chain = this.opts.chain()!;
    const taken = await chain.relayer.exclusive(async () => {
      try {
        await chain.provider.broadcastTransaction(row.raw_tx!);
        return false;
      } catch (err) {
        const text = `${(err as { code?: string }).code ?? ''} ${(err as Error).message ?? ''}`;
        if (/already known|known transaction|already imported/i.test(text)) return false;
        if (/NONCE_EXPIRED|nonce too low/i.test(text)) return true;
        throw err;
      }
    });
    if (!taken) return row.tx_hash;
    this.opts.log.info({ transfer: row.id }, 'transfers: nonce taken, signing again');
    return this.send(row);
  }

  private async fail(id: string, reason: string, blockNumber: number | null): Promise<void> {
    await this.opts.pool.query(
      `UPDATE certificate_transfers SET status = 'failed', last_error = $2, block_number = $3, updated_at = now()
       WHERE id = $1 AND status IN ('pending', 'signed', 'sent')`,
      [id, reason, blockNumber],
    );
    this.opts.log.warn({ transfer: id, reason }, 'transfers: transfer failed');
  }

  /** Records a confirmed transfer: holder, provenance and the event, with the transfer's `confirmed`. */
  private async confirm(
    row: TransferRow,
    txHash: string,
    blockNumber: number,
    relayer: string,
  ): Promise<void> {
    await transaction(this.opts.pool, async (tx) => {
      const { rowCount } = await tx.query(
        `UPDATE certificate_transfers SET status = 'confirmed', tx_hash = $2, block_number = $3, last_error = NULL,
           updated_at = now()
         WHERE id = $1 AND status <> 'confirmed'`,
        [row.id, txHash, blockNumber],
      );
      if (!rowCount) return;
      const { rows } = await tx.query<CertificateRow>(
        `UPDATE certificates SET holder_address = $2, updated_at = now() WHERE id = $1 RETURNING *`,
        [row.certificate_id, row.to_address],
      );
      await tx.query(
        `INSERT INTO provenance (certificate_id, kind, actor, from_address, to_address, transaction_hash, block_number)
         VALUES ($1, 'transferred', $2, $3, $4, $5, $6)`,
        [row.certificate_id, row.actor_id ?? relayer, row.from_address, row.to_address, txHash, blockNumber],
      );
      const cert = certificateFromRow(rows[0]!);
      await recordEvents(tx, EVENT_SOURCE, [
        {
          type: 'certificate.transferred' as const,
          data: {
            object: certificateEventObject(cert) as { id: string; tokenId: number; holderAddress: string },
            transfer: {
              from: row.from_address,
              to: row.to_address,
              toUserId: row.to_user_id,
              transactionHash: txHash,
              blockNumber,
            },
          },
          enterpriseId: cert.enterpriseId,
          livemode: cert.livemode,
        },
      ]);
    });
    this.opts.log.info(
      { transfer: row.id, certificate: row.certificate_id, tx: txHash },
      'transfers: confirmed',
    );
  }
}
