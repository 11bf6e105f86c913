// SQL of service records (migration 3341): the records, the certificate row under its lock,
// and the accepted records' public part on the row (`service_history`). Every change writes
// its event in the caller's transaction (certificate.service_record_added / _accepted /
// _refused), so the outbox and the state never disagree.
import { recordEvents, type Queryable } from '@hallmark/kit';
import type { CertificateRow } from '../certificate-rows.js';
import { EVENT_SOURCE } from '../domain/certificate.js';
import { queueMetadataUpdate } from '../metadata-updates/store.js';
import {
  publicEntryOf,
  serviceHistoryOf,
  type Attachment,
  type ServiceKind,
  type ServiceRecord,
  type ServiceStatus,
} from '../domain/service-record.js';

interface RecordRow {
  id: string;
  certificate_id: string;
  kind: ServiceKind;
  label: string | null;
  performed_at: Date;
  performer: string;
  description: string;
  attachments: Attachment[];
  added_by_type: 'brand' | 'repairer';
  added_by: string;
  created_at: Date;
  status: ServiceStatus;
  decided_by: string | null;
  decided_at: Date | null;
}

const fromRow = (r: RecordRow): ServiceRecord => ({
  id: r.id,
  certificateId: r.certificate_id,
  kind: r.kind,
  label: r.label,
  performedAt: r.performed_at.toISOString(),
  performer: r.performer,
  description: r.description,
  attachments: r.attachments ?? [],
  addedBy: { type: r.added_by_type, id: r.added_by },
  createdAt: r.created_at.toISOString(),
  status: r.status,
  decidedAt: r.decided_at?.toISOString() ?? null,
  decidedBy: r.decided_by,
});

/** The certificate by id alone (no lock): who the caller is decides access (service.ts). */
export async function certificateRow(db: Queryable, id: string): Promise<CertificateRow | undefined> {
  const { rows } = await db.query<CertificateRow>('SELECT * FROM certificates WHERE id = $1', [id]);
  return rows[0];
}

/** The certificate under a row lock in `tx`. */
export async function lockCertificateRow(tx: Queryable, id: string): Promise<CertificateRow | undefined> {
  const { rows } = await tx.query<CertificateRow>('SELECT * FROM certificates WHERE id = $1 FOR UPDATE', [
    id,
  ]);
  return rows[0];
}

/** The certificate's records (every status), oldest performed first. */
export async function recordsOf(db: Queryable, certificateId: string): Promise<ServiceRecord[]> {
  const { rows } = await db.query<RecordRow>(
    'SELECT * FROM certificate_service_records WHERE certificate_id = $1 ORDER BY performed_at, created_at, id',
    [certificateId],
  );
  return rows.map(fromRow);
}

/** One record of one certificate, locked in `tx` (undefined: none of that certificate). */
export async function lockRecord(
  tx: Queryable,
  certificateId: string,
  recordId: string,
): Promise<ServiceRecord | undefined> {
  const { rows } = await tx.query<RecordRow>(
    'SELECT * FROM certificate_service_records WHERE id = $1 AND certificate_id = $2 FOR UPDATE',
    [recordId, certificateId],
  );
  return rows[0] ? fromRow(rows[0]) : undefined;
}

interface CertRef {
  id: string;
  enterpriseId: string;
  livemode: boolean;
  tokenId: bigint | null;
}

/** The event body: the certificate (for the public cache and the webhook) with the record. */
const eventObject = (c: CertRef, r: ServiceRecord) => ({
  id: c.id,
  tokenId: c.tokenId === null ? null : Number(c.tokenId),
  serviceRecord: {
    id: r.id,
    kind: r.kind,
    label: r.label,
    performedAt: r.performedAt,
    performer: r.performer,
    description: r.description,
    attachments: r.attachments.map((a) => ({ kind: a.kind, sha256: a.sha256, caption: a.caption })),
    addedBy: r.addedBy,
    status: r.status,
    ...(r.decidedAt ? { decidedAt: r.decidedAt } : {}),
  },
});

const EVENT_OF = {
  pending: 'certificate.service_record_added',
  accepted: 'certificate.service_record_accepted',
  refused: 'certificate.service_record_refused',
} as const;

async function announce(tx: Queryable, cert: CertRef, record: ServiceRecord): Promise<void> {
  await recordEvents(tx, EVENT_SOURCE, [
    {
      type: EVENT_OF[record.status],
      data: { object: eventObject(cert, record) },
      enterpriseId: cert.enterpriseId,
      livemode: cert.livemode,
    },
  ]);
  // An accepted record changes what a marketplace shows (the token metadata's service_records
  // count): ERC-4906 MetadataUpdate, queued in this transaction.
  if (record.status === 'accepted')
    await queueMetadataUpdate(tx, { certificateId: cert.id }, 'service_record');
}

/** Inserts a pending record and its certificate.service_record_added. */
export async function insertRecord(
  tx: Queryable,
  cert: CertRef,
  r: Omit<ServiceRecord, 'createdAt' | 'status' | 'decidedAt' | 'decidedBy'>,
): Promise<ServiceRecord> {
  const { rows } = await tx.query<RecordRow>(
    `INSERT INTO certificate_service_records (id, certificate_id, enterprise_id, livemode, kind, label,
       performed_at, performer, description, attachments, added_by_type, added_by)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) RETURNING *`,
    [
      r.id,
      cert.id,
      cert.enterpriseId,
      cert.livemode,
      r.kind,
      r.label,
      r.performedAt,
      r.performer,
      r.description,
      JSON.stringify(r.attachments),
      r.addedBy.type,
      r.addedBy.id,
    ],
  );
  const record = fromRow(rows[0]!);
  await announce(tx, cert, record);
  return record;
}

/**
 * Decides a pending record (the caller holds the certificate's row and the record locked):
 * accepted ones join the row's public `service_history` (ordered by when the work was done);
 * refused ones stay only here. Its event in the same transaction.
 */
export async function decideRecord(
  tx: Queryable,
  cert: CertRef & { serviceHistory: unknown },
  recordId: string,
  decision: { status: 'accepted' | 'refused'; by: string },
): Promise<ServiceRecord> {
  const { rows } = await tx.query<RecordRow>(
    `UPDATE certificate_service_records SET status = $2, decided_by = $3, decided_at = now()
      WHERE id = $1 AND status = 'pending' RETURNING *`,
    [recordId, decision.status, decision.by],
  );
  const record = fromRow(rows[0]!);
  if (record.status === 'accepted') {
    const history = [...serviceHistoryOf(cert.serviceHistory), publicEntryOf(record)].sort((a, b) =>
      a.performedAt === b.performedAt
        ? a.acceptedAt.localeCompare(b.acceptedAt)
        : a.performedAt.localeCompare(b.performedAt),
    );
    await tx.query('UPDATE certificates SET service_history = $2, updated_at = now() WHERE id = $1', [
      cert.id,
      JSON.stringify(history),
    ]);
  }
  await announce(tx, cert, record);
  return record;
}
