// SQL of the stolen slice's own tables and reads: the certificate row locked by id (any
// enterprise: who the caller is decides, service.ts), and the enterprise's clearing policy
// (`stolen_policies`, migration 3321). Reports themselves: ../stolen-store.ts.
import type { Queryable } from '@hallmark/kit';
import type { CertificateRow } from '../certificate-rows.js';
import { DEFAULT_CLEARED_BY, isClearedBy, type StolenClearedBy } from '../domain/stolen.js';

/** The certificate under a row lock (in `tx`), by id alone; undefined when there is none. */
export async function lockCertificateById(tx: Queryable, id: string): Promise<CertificateRow | undefined> {
  const { rows } = await tx.query<CertificateRow>('SELECT * FROM certificates WHERE id = $1 FOR UPDATE', [
    id,
  ]);
  return rows[0];
}

/** The certificate by id alone (no lock). */
export async function certificateById(db: Queryable, id: string): Promise<CertificateRow | undefined> {
  const { rows } = await db.query<CertificateRow>('SELECT * FROM certificates WHERE id = $1', [id]);
  return rows[0];
}

/** Who may clear the enterprise's reports (`brand` when it never said). */
export async function policyOf(db: Queryable, enterpriseId: string): Promise<StolenClearedBy> {
  const { rows } = await db.query<{ cleared_by: string }>(
    'SELECT cleared_by FROM stolen_policies WHERE enterprise_id = $1',
    [enterpriseId],
  );
  const v = rows[0]?.cleared_by;
  return isClearedBy(v) ? v : DEFAULT_CLEARED_BY;
}

export async function setPolicy(
  db: Queryable,
  enterpriseId: string,
  clearedBy: StolenClearedBy,
): Promise<void> {
  await db.query(
    `INSERT INTO stolen_policies (enterprise_id, cleared_by) VALUES ($1, $2)
     ON CONFLICT (enterprise_id) DO UPDATE SET cleared_by = EXCLUDED.cleared_by, updated_at = now()`,
    [enterpriseId, clearedBy],
  );
}
