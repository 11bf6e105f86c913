// Hand-over exclusivity, pure rules (docs/security.md › Hand-over exclusivity): a certificate
// has at most one pending hand-over — a certificate voucher, a gift or a transfer — at a time.
// The hold itself is a column of the certificate row (migration 1801, ../handover-store.ts).
import { HallmarkError } from '@hallmark/kit/errors';

export type HandoverKind = 'voucher' | 'gift' | 'transfer';

/** Who holds a certificate's hand-over (null: nobody, or a hold that lapsed). */
export interface Handover {
  kind: HandoverKind;
  id: string;
}

const NAMES: Record<HandoverKind, string> = {
  voucher: 'certificate voucher',
  gift: 'gift',
  transfer: 'transfer',
};

/** A pending certificate voucher, gift or transfer, as a person reads it. */
export const handoverName = (kind: HandoverKind): string => NAMES[kind];

export const isHandoverKind = (v: unknown): v is HandoverKind =>
  v === 'voucher' || v === 'gift' || v === 'transfer';

/**
 * The refusal of a second hand-over (409 resource_locked: the certificate is locked by
 * another operation). `holder` is named (kind and id) only to the certificate's own
 * enterprise (`showId`); a recipient claiming a voucher or gift learns the kind only.
 */
export function handoverRefused(
  certificateId: string,
  holder: Handover | null,
  opts: { param: string; showId?: boolean; doing: string },
): HallmarkError {
  const what = holder
    ? `a pending ${handoverName(holder.kind)}${opts.showId ? ` (${holder.id})` : ''}`
    : 'another pending hand-over';
  return new HallmarkError('resource_locked', {
    param: opts.param,
    message:
      `Certificate ${certificateId} is already in ${what}; ${opts.doing} until it is claimed, ` +
      'revoked, voided, expires or completes.',
    extras: { resource: 'certificate', resource_id: certificateId },
  });
}
