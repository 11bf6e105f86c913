// SQL of lost-and-stolen reports shared by the stolen slice (report, clear) and the transfers
// (a brand recovery's confirmation ends the open report): each in the caller's transaction,
// with its provenance entry and its event (certificate.reported_stolen / certificate.recovered)
// in the same transaction (migration 3321, domain/stolen.ts), and the queued ERC-4906 metadata
// update (the token metadata's `reported` attribute). Also the guard a slice holding no
// hand-over hold calls (`assertCertificateNotReportedStolen`), e.g. the resale flow.
import { recordEvents, type Queryable } from '@hallmark/kit';
import { EVENT_SOURCE } from './domain/certificate.js';
import { queueMetadataUpdate } from './metadata-updates/store.js';
import {
  reportedStolenRefused,
  stolenFlagOf,
  type ReporterType,
  type StolenFlag,
  type StolenKind,
  type StolenReportRecord,
} from './domain/stolen.js';

interface ReportRow {
  id: string;
  certificate_id: string;
  kind: StolenKind;
  reason: string;
  reported_by_type: ReporterType;
  reported_by: string;
  reported_at: Date;
  cleared_by_type: ReporterType | null;
  cleared_by: string | null;
  cleared_at: Date | null;
  clear_reason: string | null;
  recovered_to: string | null;
}

export function reportFromRow(r: ReportRow): StolenReportRecord {
  return {
    reportId: String(r.id),
    certificateId: r.certificate_id,
    kind: r.kind,
    reason: r.reason,
    reportedAt: r.reported_at.toISOString(),
    reportedBy: { type: r.reported_by_type, id: r.reported_by },
    cleared: r.cleared_at
      ? {
          at: r.cleared_at.toISOString(),
          by: { type: r.cleared_by_type!, id: r.cleared_by! },
          reason: r.clear_reason!,
        }
      : null,
    recoveredTo: r.recovered_to,
  };
}

/**
 * The guard for any hand-over path that takes no hand-over hold of its own (the resale
 * engineer's hook): under a row lock of the certificate in `tx`, throws 409
 * `certificate_reported_stolen` while a report is open. Paths through `takeHandovers` are
 * refused there already.
 */
export async function assertCertificateNotReportedStolen(
  tx: Queryable,
  certificateId: string,
  opts: { param?: string; doing?: string } = {},
): Promise<void> {
  const { rows } = await tx.query<{ stolen: unknown }>(
    'SELECT stolen FROM certificates WHERE id = $1 FOR UPDATE',
    [certificateId],
  );
  const flag = stolenFlagOf(rows[0]?.stolen);
  if (flag) throw reportedStolenRefused(certificateId, flag, opts);
}

/** The certificate's reports, newest first. */
export async function reportsOf(db: Queryable, certificateId: string): Promise<StolenReportRecord[]> {
  const { rows } = await db.query<ReportRow>(
    'SELECT * FROM certificate_stolen_reports WHERE certificate_id = $1 ORDER BY id DESC',
    [certificateId],
  );
  return rows.map(reportFromRow);
}

interface CertRef {
  id: string;
  enterpriseId: string;
  livemode: boolean;
  tokenId: bigint | null;
  holderAddress: string;
}

const eventObject = (c: CertRef, r: StolenReportRecord, holder = c.holderAddress) => ({
  id: c.id,
  tokenId: c.tokenId === null ? null : Number(c.tokenId),
  holderAddress: holder,
  stolenReport: {
    kind: r.kind,
    reason: r.reason,
    reportedAt: r.reportedAt,
    reportedBy: r.reportedBy,
    ...(r.cleared ? { clearedAt: r.cleared.at, clearedBy: r.cleared.by, clearReason: r.cleared.reason } : {}),
    ...(r.recoveredTo ? { recoveredTo: r.recoveredTo } : {}),
  },
});

/**
 * Opens a report on a certificate the caller holds locked and found unflagged: the report
 * row, the flag on the certificate, `reported_stolen`/`reported_lost` provenance and
 * certificate.reported_stolen. The open-report index refuses a second one (constraint
 * `certificate_stolen_reports_open`).
 */
export async function openReport(
  tx: Queryable,
  cert: CertRef,
  input: { kind: StolenKind; reason: string; by: { type: ReporterType; id: string } },
): Promise<StolenReportRecord> {
  const { rows } = await tx.query<ReportRow>(
    `INSERT INTO certificate_stolen_reports (certificate_id, enterprise_id, livemode, kind, reason,
       reported_by_type, reported_by)
     VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING *`,
    [cert.id, cert.enterpriseId, cert.livemode, input.kind, input.reason, input.by.type, input.by.id],
  );
  const report = reportFromRow(rows[0]!);
  const flag: StolenFlag = {
    reportId: report.reportId,
    kind: report.kind,
    reportedAt: report.reportedAt,
    reportedBy: report.reportedBy,
  };
  await tx.query('UPDATE certificates SET stolen = $2, updated_at = now() WHERE id = $1', [
    cert.id,
    JSON.stringify(flag),
  ]);
  // the token metadata's `reported` attribute appears: ERC-4906 MetadataUpdate (docs/marketplaces.md)
  await queueMetadataUpdate(tx, { certificateId: cert.id }, 'reported_stolen');
  await tx.query('INSERT INTO provenance (certificate_id, kind, actor) VALUES ($1, $2, $3)', [
    cert.id,
    input.kind === 'lost' ? 'reported_lost' : 'reported_stolen',
    input.by.id,
  ]);
  await recordEvents(tx, EVENT_SOURCE, [
    {
      type: 'certificate.reported_stolen' as const,
      data: { object: eventObject(cert, report) },
      enterpriseId: cert.enterpriseId,
      livemode: cert.livemode,
    },
  ]);
  return report;
}

/**
 * Clears the certificate's open report (none: null): the report closed with who, when, why
 * (and, for a brand recovery, where the token went), the flag removed, `stolen_cleared`
 * provenance (a recovery's transfer records `recovered` itself) and certificate.recovered.
 */
export async function clearReport(
  tx: Queryable,
  cert: CertRef,
  input: { by: { type: ReporterType; id: string }; reason: string; recoveredTo?: string },
): Promise<StolenReportRecord | null> {
  const { rows } = await tx.query<ReportRow>(
    `UPDATE certificate_stolen_reports
        SET cleared_by_type = $2, cleared_by = $3, cleared_at = now(), clear_reason = $4, recovered_to = $5
      WHERE certificate_id = $1 AND cleared_at IS NULL RETURNING *`,
    [cert.id, input.by.type, input.by.id, input.reason, input.recoveredTo ?? null],
  );
  if (!rows[0]) return null;
  const report = reportFromRow(rows[0]);
  await tx.query('UPDATE certificates SET stolen = NULL, updated_at = now() WHERE id = $1', [cert.id]);
  await queueMetadataUpdate(tx, { certificateId: cert.id }, 'recovered'); // the attribute goes: ERC-4906
  if (!input.recoveredTo) {
    await tx.query(`INSERT INTO provenance (certificate_id, kind, actor) VALUES ($1, 'stolen_cleared', $2)`, [
      cert.id,
      input.by.id,
    ]);
  }
  await recordEvents(tx, EVENT_SOURCE, [
    {
      type: 'certificate.recovered' as const,
      data: { object: eventObject(cert, report, input.recoveredTo ?? cert.holderAddress) },
      enterpriseId: cert.enterpriseId,
      livemode: cert.livemode,
    },
  ]);
  return report;
}
