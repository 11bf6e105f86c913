// SQL of credentials and status lists (migration 3201): the queue of certificates due a
// credential, the status-list index allocation, the stored credentials, the revocation bit a
// burn sets (in the burn's transaction), and the signed status lists' cache.
//
// Lock order, everywhere: queue rows → certificate rows → status list row. The issuing pass
// holds its certificates `FOR SHARE` until it commits, so a burn (which updates the
// certificate first, then sets the bit) either waits and then sees the credential, or is seen
// by the pass, which sets the bit itself: no burn is ever missed.
import { newId, type Pool, type Queryable } from '@hallmark/kit';
import { certificateFromRow, type CertificateRow } from '../certificate-rows.js';
import type { CertificateRecord } from '../domain/certificate.js';
import { STATUS_LIST_BYTES, STATUS_LIST_SIZE, STATUS_PURPOSE } from './domain/status-list.js';

/** A certificate due a credential, with what the credential says beside the record. */
export interface DueCertificate {
  certificate: CertificateRecord;
  contract: string;
  mintedAt: Date;
  referenceNumber: string | null;
}

export interface StoredCredential {
  certificateId: string;
  enterpriseId: string;
  livemode: boolean;
  credentialId: string;
  issuerDid: string;
  keySeq: number;
  statusListId: string;
  statusIndex: number;
  credential: Record<string, unknown>;
  issuedAt: Date;
}

export interface StatusListRow {
  id: string;
  enterprise_id: string;
  livemode: boolean;
  issuer_did: string;
  bits: Buffer;
  version: string;
  signed_json: string | null;
  signed_version: string | null;
  signed_key_seq: number | null;
  updated_at: Date;
}

export interface Allocation {
  listId: string;
  index: number;
}

/** Queues certificates just minted (the relayer's confirming transaction, bootstrap.ts). */
export async function queueCredentials(tx: Queryable, certificateIds: string[]): Promise<void> {
  if (certificateIds.length === 0) return;
  await tx.query(
    `INSERT INTO credential_queue (certificate_id) SELECT unnest($1::text[]) ON CONFLICT DO NOTHING`,
    [certificateIds],
  );
}

/**
 * Sets the revocation bit of a certificate's credential (a burn, in its transaction): the
 * list's version moves, so the next read signs it again. No credential yet: nothing here (the
 * issuing pass sets the bit of a burned certificate itself). Idempotent.
 */
export async function revokeCredential(tx: Queryable, certificateId: string): Promise<boolean> {
  const { rowCount } = await tx.query(
    `UPDATE status_lists l
     SET bits = set_bit(l.bits, (c.status_index / 8) * 8 + 7 - (c.status_index % 8), 1),
         version = l.version + 1, updated_at = now()
     FROM certificate_credentials c
     WHERE c.certificate_id = $1 AND l.id = c.status_list_id
       AND get_bit(l.bits, (c.status_index / 8) * 8 + 7 - (c.status_index % 8)) = 0`,
    [certificateId],
  );
  return (rowCount ?? 0) > 0;
}

interface DueRow extends CertificateRow {
  contract_address: string;
  minted_at: Date | null;
  reference_number: string | null;
}

interface CredentialRow {
  certificate_id: string;
  enterprise_id: string;
  livemode: boolean;
  credential_id: string;
  issuer_did: string;
  key_seq: number;
  status_list_id: string;
  status_index: number;
  credential: string;
  issued_at: Date;
}

const credentialOfRow = (r: CredentialRow): StoredCredential => ({
  certificateId: r.certificate_id,
  enterpriseId: r.enterprise_id,
  livemode: r.livemode,
  credentialId: r.credential_id,
  issuerDid: r.issuer_did,
  keySeq: r.key_seq,
  statusListId: r.status_list_id,
  statusIndex: r.status_index,
  credential: JSON.parse(r.credential) as Record<string, unknown>,
  issuedAt: r.issued_at,
});

export class CredentialStore {
  constructor(readonly pool: Pool) {}

  /** Up to `limit` queued certificate ids, locked for this transaction (others skip them). */
  async claimQueued(tx: Queryable, limit: number): Promise<string[]> {
    const { rows } = await tx.query<{ certificate_id: string }>(
      `SELECT certificate_id FROM credential_queue ORDER BY enqueued_at, certificate_id
       LIMIT $1 FOR UPDATE SKIP LOCKED`,
      [limit],
    );
    return rows.map((r) => r.certificate_id);
  }

  /** Whether a certificate has been queued longer than `ms` (the queue's order index answers). */
  async queuedLongerThan(ms: number): Promise<boolean> {
    const { rows } = await this.pool.query(
      `SELECT 1 FROM credential_queue WHERE enqueued_at < now() - $1 * interval '1 millisecond' LIMIT 1`,
      [ms],
    );
    return rows.length > 0;
  }

  /** Whether anything is queued (a cheap look before a pass opens a transaction). */
  async anyQueued(): Promise<boolean> {
    const { rows } = await this.pool.query('SELECT 1 FROM credential_queue LIMIT 1');
    return rows.length > 0;
  }

  /**
   * The minted certificates among `ids` that have no credential yet, locked `FOR SHARE` (a
   * burn waits for this transaction), with their contract, mint time and voucher reference.
   */
  async lockDue(tx: Queryable, ids: string[]): Promise<DueCertificate[]> {
    const { rows } = await tx.query<DueRow>(
      `SELECT c.*, s.contract_address, p.at AS minted_at, v.reference_number
       FROM certificates c
       JOIN chain_submissions s ON s.batch_id = c.batch_id
       LEFT JOIN LATERAL (SELECT at FROM provenance
                          WHERE certificate_id = c.id AND kind = 'minted' ORDER BY seq LIMIT 1) p ON true
       LEFT JOIN certificate_vouchers v ON v.certificate_id = c.id
       WHERE c.id = ANY($1::text[]) AND c.token_id IS NOT NULL
         AND NOT EXISTS (SELECT 1 FROM certificate_credentials cc WHERE cc.certificate_id = c.id)
       ORDER BY c.enterprise_id, c.livemode, c.token_id
       FOR SHARE OF c`,
      [ids],
    );
    return rows.map((r) => ({
      certificate: certificateFromRow(r),
      contract: r.contract_address,
      mintedAt: r.minted_at ?? r.updated_at,
      referenceNumber: r.reference_number,
    }));
  }

  async dequeue(tx: Queryable, ids: string[]): Promise<void> {
    await tx.query('DELETE FROM credential_queue WHERE certificate_id = ANY($1::text[])', [ids]);
  }

  /**
   * `n` status-list entries of the enterprise's revocation lists for `issuerDid`, in index
   * order: from the newest list while it has room, then from new lists (131,072 entries
   * each). The list row is locked until the caller's transaction ends.
   */
  async allocate(
    tx: Queryable,
    enterpriseId: string,
    livemode: boolean,
    issuerDid: string,
    n: number,
  ): Promise<Allocation[]> {
    const out: Allocation[] = [];
    while (out.length < n) {
      const { rows } = await tx.query<{ id: string; seq: number; size: number; next_index: number }>(
        `SELECT id, seq, size, next_index FROM status_lists
         WHERE enterprise_id = $1 AND livemode = $2 AND purpose = $3 AND issuer_did = $4
         ORDER BY seq DESC LIMIT 1 FOR UPDATE`,
        [enterpriseId, livemode, STATUS_PURPOSE, issuerDid],
      );
      const list = rows[0];
      if (!list || list.next_index >= list.size) {
        await tx.query(
          `INSERT INTO status_lists (id, enterprise_id, livemode, purpose, issuer_did, seq, size, bits)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT DO NOTHING`,
          [
            newId('statusList'),
            enterpriseId,
            livemode,
            STATUS_PURPOSE,
            issuerDid,
            (list?.seq ?? 0) + 1,
            STATUS_LIST_SIZE,
            Buffer.alloc(STATUS_LIST_BYTES),
          ],
        );
        continue;
      }
      const take = Math.min(n - out.length, list.size - list.next_index);
      await tx.query(
        'UPDATE status_lists SET next_index = next_index + $2, updated_at = now() WHERE id = $1',
        [list.id, take],
      );
      for (let i = 0; i < take; i++) out.push({ listId: list.id, index: list.next_index + i });
    }
    return out;
  }

  async insert(tx: Queryable, c: Omit<StoredCredential, 'issuedAt'>): Promise<void> {
    await tx.query(
      `INSERT INTO certificate_credentials (certificate_id, enterprise_id, livemode, credential_id, issuer_did,
         key_seq, status_list_id, status_index, credential)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
      [
        c.certificateId,
        c.enterpriseId,
        c.livemode,
        c.credentialId,
        c.issuerDid,
        c.keySeq,
        c.statusListId,
        c.statusIndex,
        JSON.stringify(c.credential),
      ],
    );
  }

  async credentialOf(certificateId: string): Promise<StoredCredential | null> {
    const { rows } = await this.pool.query<CredentialRow>(
      'SELECT * FROM certificate_credentials WHERE certificate_id = $1',
      [certificateId],
    );
    return rows[0] ? credentialOfRow(rows[0]) : null;
  }

  async statusList(id: string): Promise<StatusListRow | null> {
    const { rows } = await this.pool.query<StatusListRow>('SELECT * FROM status_lists WHERE id = $1', [id]);
    return rows[0] ?? null;
  }

  /** Caches a signed list unless a newer signing was cached meanwhile. */
  async cacheSigned(id: string, json: string, version: string, keySeq: number): Promise<void> {
    await this.pool.query(
      `UPDATE status_lists SET signed_json = $2, signed_version = $3, signed_key_seq = $4
       WHERE id = $1 AND (signed_version IS NULL OR signed_version < $3
                          OR (signed_version = $3 AND signed_key_seq < $4))`,
      [id, json, version, keySeq],
    );
  }

  /** The hosted or domain DIDs an enterprise's credentials named so far in a mode. */
  async didsUsed(enterpriseId: string, livemode: boolean): Promise<string[]> {
    const { rows } = await this.pool.query<{ issuer_did: string }>(
      `SELECT DISTINCT issuer_did FROM status_lists WHERE enterprise_id = $1 AND livemode = $2`,
      [enterpriseId, livemode],
    );
    return rows.map((r) => r.issuer_did);
  }
}
