// All SQL of certificate search (migration 3401): the search itself over certificates, their
// voucher and their gifts, always inside the principal's enterprise and mode; and the
// blind-index backfill of recipient e-mails written before the index existed, and its re-keying
// after a key rotation (migration 3103).
import type { Pool } from '@hallmark/kit';
import type { Scope } from '../domain/certificate.js';

export interface CertificateSummaryRecord {
  id: string;
  name: string;
  status: string;
  tokenId: string | null;
  gtin: string | null;
  serial: string | null;
  referenceNumber: string | null;
  createdAt: Date;
  livemode: boolean;
}

interface SummaryRow {
  id: string;
  name: string;
  status: string;
  token_id: string | null;
  gtin: string | null;
  serial: string | null;
  reference_number: string | null;
  created_at: Date;
  livemode: boolean;
  total: string;
}

/** What the store matches: canonical values (./domain.ts), the e-mail as its index candidates. */
export interface StoreCriteria {
  referenceNumber: string | null;
  gtin: string | null;
  namePattern: string | null;
  emailIndexes: string[] | null;
}

/** The tables whose recipient e-mail has a blind index. */
export type EmailTable = 'certificate_vouchers' | 'gifts';

export class SearchStore {
  constructor(private readonly pool: Pool) {}

  /** A page of the scope's certificates matching every criterion, newest first, and the count. */
  async search(
    scope: Scope,
    c: StoreCriteria,
    page: number,
    limit: number,
  ): Promise<{ certificates: CertificateSummaryRecord[]; total: number }> {
    // The scope comes first and is never optional: another enterprise's or mode's rows can
    // only ever be filtered out, whatever the criteria.
    const params: unknown[] = [scope.enterpriseId, scope.livemode];
    const where = ['c.enterprise_id = $1', 'c.livemode = $2'];
    const param = (v: unknown) => `$${params.push(v)}`;
    if (c.referenceNumber) where.push(`v.reference_number = ${param(c.referenceNumber)}`);
    if (c.gtin) where.push(`c.gtin = ${param(c.gtin)}`);
    if (c.namePattern) where.push(`c.name ILIKE ${param(c.namePattern)}`);
    if (c.emailIndexes) {
      const h = param(c.emailIndexes);
      where.push(
        `c.id IN (SELECT certificate_id FROM certificate_vouchers WHERE recipient_email_hmac = ANY(${h}::text[])
                  UNION SELECT certificate_id FROM gifts WHERE recipient_email_hmac = ANY(${h}::text[]))`,
      );
    }
    const from = `FROM certificates c LEFT JOIN certificate_vouchers v ON v.certificate_id = c.id
       WHERE ${where.join(' AND ')}`;
    const filters = params.length;
    const { rows } = await this.pool.query<SummaryRow>(
      `SELECT c.id, c.name, c.status, c.token_id::text AS token_id, c.gtin, c.serial, c.created_at,
         c.livemode, v.reference_number, count(*) OVER () AS total
       ${from}
       ORDER BY c.created_at DESC, c.id DESC LIMIT ${param(limit)} OFFSET ${param((page - 1) * limit)}`,
      params,
    );
    let total = Number(rows[0]?.total ?? 0);
    if (!rows[0] && page > 1) {
      // Past the last page the window counts nothing: count on its own.
      const { rows: n } = await this.pool.query<{ n: string }>(
        `SELECT count(*) AS n ${from}`,
        params.slice(0, filters),
      );
      total = Number(n[0]!.n);
    }
    return { certificates: rows.map(fromRow), total };
  }

  /**
   * Rows of `table` with an encrypted recipient e-mail, by id after `after`: only those without
   * an index yet, or with `all` every one (re-keying after a rotation). The backfill walks them
   * once a pass; a row it cannot decrypt is passed over, not retried in the pass.
   */
  async emailRows(
    table: EmailTable,
    after: string,
    limit: number,
    all: boolean,
  ): Promise<{ id: string; emailEnc: string }[]> {
    const { rows } = await this.pool.query<{ id: string; recipient_email_enc: string }>(
      `SELECT id, recipient_email_enc FROM ${table}
       WHERE recipient_email_enc IS NOT NULL AND ($3 OR recipient_email_hmac IS NULL) AND id > $1
       ORDER BY id LIMIT $2`,
      [after, limit, all],
    );
    return rows.map((r) => ({ id: r.id, emailEnc: r.recipient_email_enc }));
  }

  /**
   * Sets the index of rows: only where none is set (a racing writer's value stays), or with
   * `replace` wherever it differs (re-keying: a writer meanwhile stores the same value, made
   * under the same newest key). Answers how many rows changed.
   */
  async setIndexes(
    table: EmailTable,
    rows: { id: string; hmac: string }[],
    replace: boolean,
  ): Promise<number> {
    if (rows.length === 0) return 0;
    const { rowCount } = await this.pool.query(
      `UPDATE ${table} t SET recipient_email_hmac = u.hmac
       FROM unnest($1::text[], $2::text[]) AS u(id, hmac)
       WHERE t.id = u.id
         AND (CASE WHEN $3 THEN t.recipient_email_hmac IS DISTINCT FROM u.hmac
                   ELSE t.recipient_email_hmac IS NULL END)`,
      [rows.map((r) => r.id), rows.map((r) => r.hmac), replace],
    );
    return rowCount ?? 0;
  }

  /**
   * Whether some row's e-mail is still encrypted under a key other than `keyId` (the
   * Encryptor's newest): written by a pod that had not the new key yet, or not re-encrypted yet
   * (rotate-encryption-keys.md step 3). Its index may be under the old key too.
   */
  async emailsNotUnder(keyId: string): Promise<boolean> {
    const { rows } = await this.pool.query(
      `SELECT 1 FROM certificate_vouchers
        WHERE recipient_email_enc IS NOT NULL AND split_part(recipient_email_enc, '.', 2) <> $1
       UNION ALL
       SELECT 1 FROM gifts
        WHERE recipient_email_enc IS NOT NULL AND split_part(recipient_email_enc, '.', 2) <> $1
       LIMIT 1`,
      [keyId],
    );
    return rows.length > 0;
  }

  /** The key id every row's e-mail index was last made under (null: never recorded). */
  async indexKeyId(): Promise<string | null> {
    const { rows } = await this.pool.query<{ value: string }>(
      `SELECT value FROM search_state WHERE key = 'recipient-email-index-key'`,
    );
    return rows[0]?.value ?? null;
  }

  async recordIndexKeyId(keyId: string): Promise<void> {
    await this.pool.query(
      `INSERT INTO search_state (key, value) VALUES ('recipient-email-index-key', $1)
       ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value, updated_at = now()`,
      [keyId],
    );
  }
}

const fromRow = (r: SummaryRow): CertificateSummaryRecord => ({
  id: r.id,
  name: r.name,
  status: r.status,
  tokenId: r.token_id,
  gtin: r.gtin,
  serial: r.serial,
  referenceNumber: r.reference_number,
  createdAt: r.created_at,
  livemode: r.livemode,
});
