// All SQL of certificates, batches and provenance. MintBatch writes the batch, its
// certificates and its chain submission in one transaction (so the relayer's record exists
// before anything can be sent); completion writes chain references, provenance and the
// certificate.minted event (certificate.batch_minted for a batch of more than one) in one
// transaction with the submission's `confirmed`. What other
// slices do in that transaction (voucher.minted) the relayer's caller wires in (bootstrap.ts):
// this store knows no other slice's tables and nothing of the chain.
import {
  HallmarkError,
  isId,
  newId,
  notFound,
  recordEvents,
  transaction,
  type Pool,
  type Queryable,
} from '@hallmark/kit';
import type { TransferEventMode } from './chain/events.js';
import {
  certificateFromRow,
  provenanceFromRow,
  type CertificateRow,
  type ProvenanceRow,
} from './certificate-rows.js';
import {
  batchKeyFor,
  batchMintedEvent,
  certificateEventObject,
  EVENT_SOURCE,
  type BatchStatus,
  type CertificateRecord,
  type MintBatchInput,
  type ProvenanceRecord,
  type Scope,
} from './domain/certificate.js';
import { DIGITAL_LINK_CONSTRAINT, digitalLinkTaken, refuseTakenDigitalLinks } from './digital-link/store.js';
import { findByIdempotencyKey } from './idempotency-store.js';
import { readPublic, readPublicMany } from './public-read-store.js';

const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000';

export interface CertificateRead {
  certificate: CertificateRecord;
  provenance: ProvenanceRecord[];
}

export interface BatchRead {
  batchId: string;
  status: BatchStatus;
  certificates: CertificateRead[];
  replayed: boolean;
}

/** A certificate of a batch by id and chain references (GetMintBatch `refs_only`). */
export interface MintedRefRecord {
  id: string;
  tokenId: bigint | null;
  transactionHash: string | null;
  blockNumber: number | null;
}

/** What the relayer learnt from the chain about a confirmed batch. */
export interface MintedOnChain {
  firstTokenId: bigint;
  transactionHash: string;
  blockNumber: number;
  signer: string;
}

export class CertificatesStore {
  constructor(
    readonly pool: Pool,
    /** The contract batches are minted on; null when the service runs without a chain. */
    private readonly contractAddress: () => string | null,
  ) {}

  /**
   * Records a batch, its certificates and its chain submission, or answers the batch an
   * earlier call with the same key recorded (replayed). The same key with another request
   * is a conflict. `merkleRoot` is the root of the batch's metadata tree (the service builds
   * it as the contract checks it).
   */
  async createBatch(
    scope: Scope,
    input: MintBatchInput,
    merkleRoot: string,
    /** The events the batch is minted with (its enterprise's chain settings); null: the relayer's default. */
    transferEvents: TransferEventMode | null = null,
  ): Promise<BatchRead> {
    const contract = this.contractAddress();
    if (!contract) {
      throw new HallmarkError('service_unavailable', { message: 'No chain is configured for minting.' });
    }
    const existing = await this.findBatch(scope, input);
    if (existing) return existing;
    try {
      const created = await transaction(this.pool, async (tx) => {
        const id = newId('certificateBatch');
        await tx.query(
          `INSERT INTO certificate_batches (id, enterprise_id, livemode, idempotency_key, request_hash,
             holder_address, quantity, merkle_root, actor_id, transfer_events)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
          [
            id,
            scope.enterpriseId,
            scope.livemode,
            input.idempotencyKey,
            input.requestHash,
            input.holderAddress,
            input.items.length,
            merkleRoot,
            scope.actorId || null,
            transferEvents,
          ],
        );
        const rows = input.items.map((item, position) => ({
          id: newId('certificate'),
          position,
          name: item.name,
          image_url: item.imageUrl,
          metadata: item.metadata,
          metadata_hash: item.metadataHash,
          gtin: item.gtin,
          serial: item.serial,
        }));
        await refuseTakenDigitalLinks(tx, scope.livemode, input);
        // The answer is made from the inserted rows: reading the batch back was a second
        // 1,000-row read (and an empty provenance read) of every MintBatch.
        const { rows: inserted } = await tx.query<CertificateRow>(
          `INSERT INTO certificates (id, enterprise_id, livemode, batch_id, position, name, image_url,
             metadata, metadata_hash, holder_address, gtin, serial)
           SELECT r.id, $1, $2, $3, r.position, r.name, r.image_url, r.metadata, r.metadata_hash, $4,
             r.gtin, r.serial
           FROM jsonb_to_recordset($5::jsonb) AS r(id text, position int, name text, image_url text,
             metadata jsonb, metadata_hash text, gtin text, serial text)
           RETURNING *`,
          [scope.enterpriseId, scope.livemode, id, input.holderAddress, JSON.stringify(rows)],
        );
        await tx.query(
          `INSERT INTO chain_submissions (batch_id, batch_key, contract_address) VALUES ($1, $2, $3)`,
          [id, batchKeyFor(scope.enterpriseId, scope.livemode, input.idempotencyKey), contract],
        );
        return { id, inserted };
      });
      // A new batch is pending and its certificates have no provenance yet.
      return {
        batchId: created.id,
        status: 'pending',
        certificates: created.inserted
          .sort((a, b) => a.position - b.position)
          .map((r) => ({ certificate: certificateFromRow(r), provenance: [] })),
        replayed: false,
      };
    } catch (err) {
      const constraint = (err as { constraint?: string }).constraint;
      if (constraint === 'certificate_batches_idempotency') {
        const raced = await this.findBatch(scope, input);
        if (raced) return raced;
      }
      // A concurrent batch took a (GTIN, serial) between the check and the insert.
      if (constraint === DIGITAL_LINK_CONSTRAINT) throw digitalLinkTaken(null);
      throw err;
    }
  }

  private async findBatch(scope: Scope, input: MintBatchInput): Promise<BatchRead | null> {
    const row = await findByIdempotencyKey<{ id: string; request_hash: string }>(
      this.pool,
      'certificate_batches',
      scope,
      input.idempotencyKey,
      input.requestHash,
    );
    return row ? { ...(await this.readBatch(row.id)), replayed: true } : null;
  }

  async readBatch(batchId: string, db: Queryable = this.pool): Promise<Omit<BatchRead, 'replayed'>> {
    const { rows: batch } = await db.query<{ status: BatchStatus }>(
      'SELECT status FROM certificate_batches WHERE id = $1',
      [batchId],
    );
    if (!batch[0]) throw notFound('batch', batchId);
    const { rows } = await db.query<CertificateRow>(
      'SELECT * FROM certificates WHERE batch_id = $1 ORDER BY position',
      [batchId],
    );
    const provenance = await this.provenanceOf(
      rows.map((r) => r.id),
      db,
    );
    return {
      batchId,
      status: batch[0].status,
      certificates: rows.map((r) => ({
        certificate: certificateFromRow(r),
        provenance: provenance.get(r.id) ?? [],
      })),
    };
  }

  /**
   * A batch's certificates by id and chain references, in item order: four narrow columns, no
   * metadata and no provenance (what a bulk job settling 1,000 items at a time reads).
   */
  async batchRefs(batchId: string): Promise<MintedRefRecord[]> {
    const { rows } = await this.pool.query<{
      id: string;
      token_id: string | null;
      transaction_hash: string | null;
      block_number: string | null;
    }>(
      `SELECT id, token_id, transaction_hash, block_number FROM certificates
        WHERE batch_id = $1 ORDER BY position`,
      [batchId],
    );
    return rows.map((r) => ({
      id: r.id,
      tokenId: r.token_id === null ? null : BigInt(r.token_id),
      transactionHash: r.transaction_hash,
      blockNumber: r.block_number === null ? null : Number(r.block_number),
    }));
  }

  /**
   * The status of a batch of the scope's enterprise and mode (cheap: no certificates read);
   * malformed, unknown or foreign ids are not found.
   */
  async batchStatus(scope: Scope, batchId: string): Promise<BatchStatus> {
    if (!isId('certificateBatch', batchId)) throw notFound('batch', batchId);
    const { rows } = await this.pool.query<{ status: BatchStatus }>(
      'SELECT status FROM certificate_batches WHERE id = $1 AND enterprise_id = $2 AND livemode = $3',
      [batchId, scope.enterpriseId, scope.livemode],
    );
    if (!rows[0]) throw notFound('batch', batchId);
    return rows[0].status;
  }

  private async provenanceOf(
    ids: string[],
    db: Queryable = this.pool,
  ): Promise<Map<string, ProvenanceRecord[]>> {
    const out = new Map<string, ProvenanceRecord[]>();
    if (ids.length === 0) return out;
    const { rows } = await db.query<ProvenanceRow>(
      'SELECT * FROM provenance WHERE certificate_id = ANY($1::text[]) ORDER BY seq',
      [ids],
    );
    for (const r of rows) {
      const list = out.get(r.certificate_id) ?? [];
      list.push(provenanceFromRow(r));
      out.set(r.certificate_id, list);
    }
    return out;
  }

  /** A certificate of the scope's enterprise and mode; malformed or foreign ids are not found. */
  async get(scope: Scope, id: string): Promise<CertificateRead> {
    if (!isId('certificate', id)) throw notFound('certificate', id);
    const { rows } = await this.pool.query<CertificateRow>(
      'SELECT * FROM certificates WHERE id = $1 AND enterprise_id = $2 AND livemode = $3',
      [id, scope.enterpriseId, scope.livemode],
    );
    if (!rows[0]) throw notFound('certificate', id);
    return {
      certificate: certificateFromRow(rows[0]),
      provenance: (await this.provenanceOf([id])).get(id) ?? [],
    };
  }

  /**
   * Public read: any certificate by id. The hottest read of the service, so one prepared
   * statement (one round trip, planned once per connection) for the certificate and its
   * provenance.
   */
  async getPublic(id: string): Promise<CertificateRead> {
    if (!isId('certificate', id)) throw notFound('certificate', id);
    const read = await readPublic(this.pool, id);
    if (!read) throw notFound('certificate', id);
    return read;
  }

  /**
   * Public reads of several certificates in one round trip (the gateway batches concurrent
   * cache misses): those found, in no particular order; malformed and unknown ids are absent.
   */
  async getPublicMany(ids: string[]): Promise<CertificateRead[]> {
    return readPublicMany(
      this.pool,
      ids.filter((id) => isId('certificate', id)),
    );
  }

  /**
   * Marks a batch minted inside the relayer's confirming transaction: token ids, chain refs,
   * one `minted` provenance entry per certificate and one event: certificate.minted for a batch
   * of one, certificate.batch_minted for more. Answers the
   * ids of the certificates it marked (none when the batch was already minted: idempotent), so
   * the caller can record what follows them in the same transaction.
   */
  async completeBatch(tx: Queryable, batchId: string, minted: MintedOnChain): Promise<string[]> {
    const { rows: batch } = await tx.query<{
      status: BatchStatus;
      quantity: number;
      actor_id: string | null;
    }>('SELECT status, quantity, actor_id FROM certificate_batches WHERE id = $1 FOR UPDATE', [batchId]);
    if (!batch[0] || batch[0].status === 'minted') return [];
    const { rows } = await tx.query<CertificateRow>(
      `UPDATE certificates SET token_id = $2::numeric + position, status = 'minted',
         transaction_hash = $3, block_number = $4, updated_at = now()
       WHERE batch_id = $1 AND status = 'pending' RETURNING *`,
      [batchId, minted.firstTokenId.toString(), minted.transactionHash, minted.blockNumber],
    );
    await tx.query(
      `INSERT INTO provenance (certificate_id, kind, actor, from_address, to_address, transaction_hash, block_number)
       SELECT c.id, 'minted', $2, $3, c.holder_address, c.transaction_hash, c.block_number
       FROM certificates c WHERE c.batch_id = $1 ORDER BY c.position`,
      [batchId, batch[0].actor_id ?? minted.signer, ZERO_ADDRESS],
    );
    await tx.query(`UPDATE certificate_batches SET status = 'minted', updated_at = now() WHERE id = $1`, [
      batchId,
    ]);
    const certs = rows.map(certificateFromRow).sort((a, b) => a.position - b.position);
    if (certs.length === 1) {
      const c = certs[0]!;
      await recordEvents(tx, EVENT_SOURCE, [
        {
          type: 'certificate.minted',
          data: { object: certificateEventObject(c) },
          enterpriseId: c.enterpriseId,
          livemode: c.livemode,
        },
      ]);
    } else if (certs.length > 1) {
      // One event for the batch: per-certificate events would put a bulk job's every item on
      // the bus and through every gateway (kit events › certificate.batch_minted).
      await recordEvents(tx, EVENT_SOURCE, [batchMintedEvent(batchId, certs)]);
    }
    return certs.map((c) => c.id);
  }

  /** Marks a batch failed (its transaction reverted for a reason other than a used key). */
  async failBatch(tx: Queryable, batchId: string): Promise<void> {
    await tx.query(
      `UPDATE certificate_batches SET status = 'failed', updated_at = now() WHERE id = $1 AND status = 'pending'`,
      [batchId],
    );
  }

  /**
   * Whether minting is busy: a chain submission not final yet, or the newest one confirmed
   * less than `quietMs` ago (a bulk job's next batch is on its way). Both read by index.
   */
  async mintsActive(quietMs: number): Promise<boolean> {
    const { rows } = await this.pool.query<{ active: boolean }>(
      `SELECT EXISTS (SELECT 1 FROM chain_submissions WHERE status IN ('pending', 'signed', 'sent'))
           OR coalesce((SELECT confirmed_at FROM chain_submissions ORDER BY id DESC LIMIT 1)
                         > now() - $1 * interval '1 millisecond', false) AS active`,
      [quietMs],
    );
    return rows[0]?.active ?? false;
  }

  async databaseHealthy(): Promise<boolean> {
    try {
      await this.pool.query('SELECT 1');
      return true;
    } catch {
      return false;
    }
  }
}
