// Service records, pure rules (docs/service-records.md): who may append, read and decide, the
// checked input of a new record, and the public part of an accepted one (the certificate row's
// `service_history`, shown on the verify page and the public read).
import { HallmarkError, invalidParam, missingParam } from '@hallmark/kit/errors';
import { hasForbiddenControl, hasInvisibleOrBidi } from '@hallmark/kit/text';

export const SERVICE_KINDS = ['repair', 'authentication_check', 'refurbishment', 'other'] as const;
export type ServiceKind = (typeof SERVICE_KINDS)[number];
export type ServiceStatus = 'pending' | 'accepted' | 'refused';
export type AttachmentKind = 'photo' | 'document';

/** The scope a brand gives a repairer's key: append service records, nothing else. */
export const SERVICE_RECORDS_WRITE = 'service_records.write';
/** The brand's own scopes for service records (a session holds admin.*, which covers both). */
export const BRAND_WRITE = 'transactions.update';
export const BRAND_READ = 'transactions.read';

export const MAX_ATTACHMENTS = 10;
export const MAX_DESCRIPTION = 4000;
export const MAX_PERFORMER = 200;
export const MAX_LABEL = 100;
export const MAX_CAPTION = 200;

/** An attachment as stored: an object of the media slice (`/media/<sha256>`). */
export interface Attachment {
  kind: AttachmentKind;
  sha256: string;
  contentType: string;
  width: number;
  height: number;
  caption: string | null;
}

export interface ServiceRecord {
  id: string;
  certificateId: string;
  kind: ServiceKind;
  label: string | null;
  performedAt: string;
  performer: string;
  description: string;
  attachments: Attachment[];
  addedBy: { type: 'brand' | 'repairer'; id: string };
  createdAt: string;
  status: ServiceStatus;
  decidedAt: string | null;
  decidedBy: string | null;
}

/** What anyone reads of an accepted record: never who added it by id, nor anything pending or refused. */
export interface PublicServiceEntry {
  id: string;
  kind: ServiceKind;
  label: string | null;
  performedAt: string;
  performer: string;
  description: string;
  attachments: Attachment[];
  acceptedAt: string;
}

export const publicEntryOf = (r: ServiceRecord): PublicServiceEntry => ({
  id: r.id,
  kind: r.kind,
  label: r.label,
  performedAt: r.performedAt,
  performer: r.performer,
  description: r.description,
  attachments: r.attachments,
  acceptedAt: r.decidedAt ?? r.createdAt,
});

/** The row's `service_history` column; anything malformed is shown as nothing (never a 500). */
export function serviceHistoryOf(v: unknown): PublicServiceEntry[] {
  return Array.isArray(v) ? (v as PublicServiceEntry[]).filter((e) => e && typeof e.id === 'string') : [];
}

/**
 * Who the caller is for one certificate, from the principal alone (the owner is found by the
 * service: it needs the wallet). Fail closed: another enterprise or mode is nobody; a principal
 * of the enterprise with neither the brand's scopes nor the repairer's is refused.
 */
export type Role = 'brand' | 'repairer';
export function enterpriseRoleOf(scopes: readonly string[], need: 'append' | 'read'): Role | null {
  const has = (s: string) => hasScope(scopes, s);
  if (need === 'read') return has(BRAND_READ) || has(BRAND_WRITE) ? 'brand' : null;
  if (has(BRAND_WRITE)) return 'brand';
  return has(SERVICE_RECORDS_WRITE) ? 'repairer' : null;
}

/** architecture.md › Scopes: exact, `X.*` for `X.…`, `admin.*` for all. */
export function hasScope(granted: readonly string[], required: string): boolean {
  if (granted.includes('admin.*') || granted.includes(required)) return true;
  const dot = required.indexOf('.');
  return dot > 0 && granted.includes(`${required.slice(0, dot)}.*`);
}

export const isServiceKind = (v: unknown): v is ServiceKind =>
  (SERVICE_KINDS as readonly string[]).includes(v as string);

function text(param: string, v: string | undefined, max: number, opts: { name?: boolean } = {}): string {
  const s = (v ?? '').trim();
  if (!s) throw missingParam(param);
  if (s.length > max) throw invalidParam(param, `${param} must be at most ${max} characters.`);
  if (hasForbiddenControl(s) || (opts.name && hasInvisibleOrBidi(s)))
    throw invalidParam(
      param,
      `${param} contains characters that cannot be shown (controls or invisible ones).`,
    );
  return s;
}

export interface AttachmentInput {
  kind?: string;
  url?: string;
  caption?: string;
}

export interface NewServiceRecordInput {
  kind?: string;
  label?: string;
  performedAt?: string;
  performer?: string;
  description?: string;
  attachments?: AttachmentInput[];
}

export interface NewServiceRecord {
  kind: ServiceKind;
  label: string | null;
  performedAt: Date;
  performer: string;
  description: string;
  attachments: { kind: AttachmentKind; url: string; caption: string | null }[];
}

/** Checks a new record before anything is fetched or written; `now` bounds performed_at. */
export function parseNewRecord(input: NewServiceRecordInput, now: Date): NewServiceRecord {
  if (!input.kind) throw missingParam('kind');
  if (!isServiceKind(input.kind))
    throw invalidParam('kind', `kind must be one of ${SERVICE_KINDS.join(', ')}.`);
  const kind = input.kind;
  let label: string | null = null;
  if (kind === 'other') label = text('label', input.label, MAX_LABEL, { name: true });
  else if (input.label) throw invalidParam('label', 'label is given only with kind "other".');
  if (!input.performedAt) throw missingParam('performed_at');
  const performedAt = new Date(input.performedAt);
  if (
    !/^\d{4}-\d{2}-\d{2}(T[\d:.]+(Z|[+-]\d{2}:?\d{2}))?$/.test(input.performedAt) ||
    isNaN(performedAt.getTime())
  )
    throw invalidParam('performed_at', 'performed_at must be an ISO 8601 date or date-time.');
  // A record of work not done yet is not a record (a clock a few minutes ahead is tolerated).
  if (performedAt.getTime() > now.getTime() + 10 * 60_000)
    throw invalidParam('performed_at', 'performed_at cannot be in the future.');
  if (performedAt.getUTCFullYear() < 1900)
    throw invalidParam('performed_at', 'performed_at is too far back.');
  const performer = text('performer', input.performer, MAX_PERFORMER, { name: true });
  const description = text('description', input.description, MAX_DESCRIPTION);
  const list = input.attachments ?? [];
  if (list.length > MAX_ATTACHMENTS)
    throw invalidParam('attachments', `At most ${MAX_ATTACHMENTS} attachments per record.`);
  const attachments = list.map((a, i) => {
    const param = `attachments[${i}]`;
    if (a.kind !== 'photo' && a.kind !== 'document')
      throw invalidParam(`${param}.kind`, 'An attachment kind is "photo" or "document".');
    if (!a.url) throw missingParam(`${param}.url`);
    if (!/^https:\/\//i.test(a.url) || a.url.length > 2048)
      throw invalidParam(
        `${param}.url`,
        'An attachment url must be an https URL of at most 2,048 characters.',
      );
    const caption = a.caption ? text(`${param}.caption`, a.caption, MAX_CAPTION) : null;
    return { kind: a.kind as AttachmentKind, url: a.url, caption };
  });
  return { kind, label, performedAt, performer, description, attachments };
}

export type Decision = 'accept' | 'refuse';
export const isDecision = (v: unknown): v is Decision => v === 'accept' || v === 'refuse';

/** A decision on a record already decided: 422 (a decision is final), naming what was decided. */
export const alreadyDecided = (r: ServiceRecord) =>
  new HallmarkError('validation_failed', {
    param: 'record_id',
    message: `This service record was already ${r.status} on ${(r.decidedAt ?? '').slice(0, 10)}; a decision is final.`,
  });
