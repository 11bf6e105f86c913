// Lost and stolen, pure rules (docs/lost-and-stolen.md): the open report a certificate row
// carries, who may report and clear, and the 409 every hand-over gets while a report is open.
// Shared by the stolen slice, the hand-over hold (../handover-store.ts) and the transfers.
import { HallmarkError } from '@hallmark/kit/errors';

export type StolenKind = 'stolen' | 'lost';
export type ReporterType = 'brand' | 'owner';
/** Who may clear a report (per enterprise; default `brand`). */
export type StolenClearedBy = 'brand' | 'brand_or_reporter';
export const DEFAULT_CLEARED_BY: StolenClearedBy = 'brand';

/** The open report as the certificate row keeps it (`certificates.stolen`). */
export interface StolenFlag {
  reportId: string;
  kind: StolenKind;
  reportedAt: string;
  reportedBy: { type: ReporterType; id: string };
}

/** A report as the brand reads it (the reason is never on the public read). */
export interface StolenReportRecord extends StolenFlag {
  certificateId: string;
  reason: string;
  cleared: { at: string; by: { type: ReporterType; id: string }; reason: string } | null;
  recoveredTo: string | null;
}

export const isStolenKind = (v: unknown): v is StolenKind => v === 'stolen' || v === 'lost';
export const isClearedBy = (v: unknown): v is StolenClearedBy => v === 'brand' || v === 'brand_or_reporter';

/** The flag of a row's `stolen` column (null: no open report; anything malformed fails closed as stolen). */
export function stolenFlagOf(v: unknown): StolenFlag | null {
  if (v === null || v === undefined) return null;
  const o = v as Partial<StolenFlag>;
  return {
    reportId: String(o.reportId ?? ''),
    kind: isStolenKind(o.kind) ? o.kind : 'stolen',
    reportedAt: String(o.reportedAt ?? ''),
    reportedBy: {
      type: o.reportedBy?.type === 'owner' ? 'owner' : 'brand',
      id: String(o.reportedBy?.id ?? ''),
    },
  };
}

const day = (iso: string) => (iso.length >= 10 ? iso.slice(0, 10) : iso);

/**
 * The refusal of any hand-over (transfer, gift, certificate voucher and its claim, resale)
 * while a report is open: 409 `certificate_reported_stolen`, naming the report's kind and day.
 */
export function reportedStolenRefused(
  certificateId: string,
  flag: StolenFlag,
  opts: { param?: string; doing?: string } = {},
): HallmarkError {
  const doing = opts.doing ?? 'it cannot change hands';
  return new HallmarkError('certificate_reported_stolen', {
    param: opts.param ?? 'certificate_id',
    message:
      `Certificate ${certificateId} was reported ${flag.kind} on ${day(flag.reportedAt)}; ${doing} ` +
      'until the report is cleared.',
    extras: { resource: 'certificate', resource_id: certificateId },
  });
}

/** Throws the refusal when the certificate carries an open report (the guard for callers holding the row). */
export function assertNotReportedStolen(
  cert: { id: string; stolen: StolenFlag | null },
  opts: { param?: string; doing?: string } = {},
): void {
  if (cert.stolen) throw reportedStolenRefused(cert.id, cert.stolen, opts);
}

/** Validates a report's or a clear's reason: 1–1,000 characters after trimming. */
export function parseReason(raw: string | undefined, param = 'reason'): string {
  const reason = (raw ?? '').trim();
  if (!reason) throw new HallmarkError('parameter_missing', { param, message: `${param} is required.` });
  if (reason.length > 1000)
    throw new HallmarkError('parameter_invalid', {
      param,
      message: `${param} must be at most 1000 characters.`,
    });
  return reason;
}

/** Whether `clearer` may clear a report under the enterprise's policy. */
export function mayClear(
  policy: StolenClearedBy,
  report: Pick<StolenFlag, 'reportedBy'>,
  clearer: { type: ReporterType; id: string },
): boolean {
  if (clearer.type === 'brand') return true;
  return (
    policy === 'brand_or_reporter' &&
    report.reportedBy.type === 'owner' &&
    report.reportedBy.id === clearer.id
  );
}
