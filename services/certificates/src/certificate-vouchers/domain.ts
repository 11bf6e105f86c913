// Certificate vouchers, pure rules: the reference number (Crockford base32 with a Damm check
// character; legacy mod-37 symbols still accepted), validation of a CreateVouchers request, the
// derived status, the claim refusals and the view events carry. No I/O.
import { createHash, randomInt } from 'node:crypto';
import { HallmarkError, invalidParam, missingParam, notFound } from '@hallmark/kit/errors';
import { newEvent, type EventInput, type EventType } from '@hallmark/kit/events';
import { isId } from '@hallmark/kit/ids';
import { canonicalJson } from '../domain/certificate.js';
import { handoverRefused, type HandoverKind } from '../domain/handover.js';

export const MAX_VOUCHER_ITEMS = 1000;
export const DEFAULT_EXPIRY_DAYS = 30;
export const MAX_EXPIRY_DAYS = 3650;
const MAX_METADATA_JSON = 16_384;
const DAY_MS = 86_400_000;

// ---------------------------------------------------------------------------------------------
// Reference numbers: `HM-XXXX-XXXX-C`. Eight Crockford base32 symbols (40 random bits; no I, L,
// O, U, so nothing reads as another character) and one check character from the same 32
// symbols, so the whole number can be read out over the phone.
//
// The check is Damm's scheme over GF(32): the quasigroup x∘d = α·x ⊕ d (α a primitive element
// of GF(2)[x]/(x⁵+x²+1), i.e. "times two, reduced") is totally anti-symmetric, so folding the nine
// symbols from 0 ends at 0 exactly when the number is whole: every single mistyped symbol and
// every swap of two adjacent symbols (the check character included) is caught.
//
// Numbers issued before this scheme carry Crockford's mod-37 check symbol (`*~$=U` beyond the
// 32 digits). They stay valid: a number is accepted when its check matches either scheme, and a
// lookup is an exact match on the stored number, so a typo in a new number only ever reaches a
// voucher whose stored number is that exact (legacy-valid) string — as unlikely as guessing one.

const DIGITS = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const LEGACY_CHECK_SYMBOLS = `${DIGITS}*~$=U`;
const BODY_LENGTH = 8;
const REFERENCE_PREFIX = 'HM';
const GF32_REDUCE = 0b100101; // x⁵ + x² + 1

/** Crockford's decoding aliases: lower case, and I/L read as 1, O as 0. */
function decodeSymbol(ch: string): number {
  const c = ch.toUpperCase();
  const aliased = c === 'O' ? '0' : c === 'I' || c === 'L' ? '1' : c;
  return DIGITS.indexOf(aliased);
}

function bodyValues(body: string): number[] {
  return [...body].map((ch) => {
    const v = decodeSymbol(ch);
    if (v < 0) throw new Error(`not a Crockford base32 digit: ${ch}`);
    return v;
  });
}

/** α·x in GF(32). */
const times2 = (x: number) => (x & 0x10 ? (x << 1) ^ GF32_REDUCE : x << 1);

/** Damm's fold: x∘d = α·x ⊕ d over the values, from 0. */
const dammFold = (values: number[]) => values.reduce((x, d) => times2(x) ^ d, 0);

/** The check character of a body of Crockford digits (Damm over GF(32); a Crockford digit). */
export function checkSymbol(body: string): string {
  return DIGITS[times2(dammFold(bodyValues(body)))]!;
}

/** The mod-37 check symbol of numbers issued before the Damm check (still valid on lookup). */
export function legacyCheckSymbol(body: string): string {
  let mod = 0;
  for (const v of bodyValues(body)) mod = (mod * 32 + v) % 37;
  return LEGACY_CHECK_SYMBOLS[mod]!;
}

const format = (body: string, check: string) =>
  `${REFERENCE_PREFIX}-${body.slice(0, 4)}-${body.slice(4)}-${check}`;

/** A fresh reference number (uniqueness is the table's unique index; callers retry a clash). */
export function newReferenceNumber(): string {
  let body = '';
  for (let i = 0; i < BODY_LENGTH; i++) body += DIGITS[randomInt(32)];
  return format(body, checkSymbol(body));
}

/**
 * The canonical form of a reference number as a person may type it (any case, with or without
 * the `HM` prefix, hyphens or spaces; O for 0 and I/L for 1), or null when it is not one: wrong
 * length, a symbol outside the alphabet, or a check that matches neither the Damm check nor
 * (for numbers issued before it) the legacy mod-37 symbol.
 */
export function parseReferenceNumber(input: string): string | null {
  let s = input.replace(/[\s-]/g, '').toUpperCase();
  if (s.length === BODY_LENGTH + 1 + REFERENCE_PREFIX.length && s.startsWith(REFERENCE_PREFIX)) {
    s = s.slice(REFERENCE_PREFIX.length);
  }
  if (s.length !== BODY_LENGTH + 1) return null;
  let body = '';
  for (const ch of s.slice(0, BODY_LENGTH)) {
    const v = decodeSymbol(ch);
    if (v < 0) return null;
    body += DIGITS[v];
  }
  const typed = s[BODY_LENGTH]!;
  const check = LEGACY_CHECK_SYMBOLS.indexOf(typed) >= 32 ? typed : DIGITS[decodeSymbol(typed)];
  if (!check) return null;
  return check === checkSymbol(body) || check === legacyCheckSymbol(body) ? format(body, check) : null;
}

// ---------------------------------------------------------------------------------------------
// CreateVouchers

export interface VoucherItemInput {
  certificateId: string;
  metadata: Record<string, unknown>;
  recipientEmail: string | null;
  recipientName: string | null;
  expiryDays: number;
  lineItemGid: string | null;
}

export interface CreateVouchersInput {
  idempotencyKey: string;
  items: VoucherItemInput[];
  /** sha256 of the canonical request: a replay with another request is a conflict. */
  requestHash: string;
}

export interface RawVoucherItem {
  certificate_id?: string;
  metadata_json?: string;
  recipient_email?: string;
  recipient_name?: string;
  expiry_days?: number;
  line_item_gid?: string;
}

/** A pragmatic address check (one @, a dot in the domain, no spaces); delivery proves the rest. */
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

function parseMetadata(json: string | undefined, param: string): Record<string, unknown> {
  if (!json) return {};
  if (json.length > MAX_METADATA_JSON) {
    throw invalidParam(param, `metadata must be at most ${MAX_METADATA_JSON} bytes of JSON.`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    throw invalidParam(param, 'metadata must be a JSON object.');
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw invalidParam(param, 'metadata must be a JSON object.');
  }
  return parsed as Record<string, unknown>;
}

function parseItem(item: RawVoucherItem, i: number): VoucherItemInput {
  const p = (field: string) => `items[${i}].${field}`;
  if (!item.certificate_id) throw missingParam(p('certificate_id'));
  if (!isId('certificate', item.certificate_id)) throw notFound('certificate', item.certificate_id);
  const email = item.recipient_email?.trim() || null;
  if (email !== null && (email.length > 254 || !EMAIL.test(email))) {
    throw invalidParam(p('recipient_email'), 'recipient_email must be a valid e-mail address.');
  }
  const name = item.recipient_name?.trim() || null;
  if (name !== null && name.length > 200) {
    throw invalidParam(p('recipient_name'), 'recipient_name must be at most 200 characters.');
  }
  // proto3 has no "unset" for an int32: 0 means the spec's default of 30 days.
  const days = item.expiry_days || DEFAULT_EXPIRY_DAYS;
  if (!Number.isInteger(days) || days < 1 || days > MAX_EXPIRY_DAYS) {
    throw invalidParam(p('expiry_days'), `expiry_days must be a whole number from 1 to ${MAX_EXPIRY_DAYS}.`);
  }
  const gid = item.line_item_gid?.trim() || null;
  if (gid !== null && gid.length > 255) {
    throw invalidParam(p('line_item_gid'), 'line_item_gid must be at most 255 characters.');
  }
  return {
    certificateId: item.certificate_id,
    metadata: parseMetadata(item.metadata_json, p('metadata')),
    recipientEmail: email,
    recipientName: name,
    expiryDays: days,
    lineItemGid: gid,
  };
}

export function parseCreateVouchers(req: {
  idempotencyKey?: string;
  items?: RawVoucherItem[];
}): CreateVouchersInput {
  const key = req.idempotencyKey ?? '';
  if (!key) throw missingParam('idempotency_key');
  if (key.length > 255)
    throw invalidParam('idempotency_key', 'idempotency_key must be at most 255 characters.');
  const raw = req.items ?? [];
  if (raw.length === 0) throw missingParam('items');
  if (raw.length > MAX_VOUCHER_ITEMS) {
    throw invalidParam('items', `At most ${MAX_VOUCHER_ITEMS} vouchers per request.`);
  }
  const items = raw.map(parseItem);
  const seen = new Set<string>();
  items.forEach((item, i) => {
    if (seen.has(item.certificateId)) {
      throw invalidParam(`items[${i}].certificate_id`, 'Each certificate can have only one voucher.');
    }
    seen.add(item.certificateId);
  });
  const requestHash = createHash('sha256').update(canonicalJson(items)).digest('hex');
  return { idempotencyKey: key, items, requestHash };
}

export const expiresAtOf = (createdAt: Date, expiryDays: number) =>
  new Date(createdAt.getTime() + expiryDays * DAY_MS);

// ---------------------------------------------------------------------------------------------
// Status, claim rules, views

export type VoucherStatus = 'available' | 'claimed' | 'expired' | 'voided' | 'unavailable';

export interface VoucherRecord {
  id: string;
  enterpriseId: string;
  livemode: boolean;
  url: string;
  referenceNumber: string;
  certificateId: string;
  metadata: Record<string, unknown>;
  lineItemGid: string | null;
  expiresAt: Date;
  createdAt: Date;
  claimedBy: string | null;
  claimedAt: Date | null;
  /** Set when the voucher was voided before any claim (its order was cancelled). */
  voidedAt: Date | null;
  voidReason: string | null;
  claimToAddress: string | null;
  claimTransferKey: string | null;
  /** The certificate's token and mint transaction (null until minted). */
  tokenId: bigint | null;
  transactionHash: string | null;
  blockNumber: number | null;
  certificateStatus: 'pending' | 'minted' | 'burned';
  /**
   * Why an unclaimed, unexpired voucher cannot be claimed now: its certificate is in another
   * pending hand-over, or moved away from the issuer. Null: nothing stands in the way.
   */
  unavailable?: 'handover' | 'moved' | null;
  /** The kind of the certificate's live hand-over (this voucher's own included). */
  otherHandover?: HandoverKind | null;
}

/**
 * Derived at every read: a claim is final, then a void; otherwise past `expiresAt` is
 * expired; a voucher whose certificate is in another hand-over or moved away is
 * `unavailable` (so the public page never says `available` for one that cannot be claimed).
 */
export function voucherStatus(
  v: Pick<VoucherRecord, 'claimedAt' | 'expiresAt'> & {
    voidedAt?: Date | null;
    unavailable?: VoucherRecord['unavailable'];
  },
  now = new Date(),
): VoucherStatus {
  if (v.claimedAt) return 'claimed';
  if (v.voidedAt) return 'voided';
  if (now.getTime() >= v.expiresAt.getTime()) return 'expired';
  return v.unavailable ? 'unavailable' : 'available';
}

const refuse = (message: string) => new HallmarkError('validation_failed', { param: 'voucher_id', message });

function utc(d: Date): string {
  const iso = d.toISOString();
  return `${iso.slice(0, 10)} at ${iso.slice(11, 16)} UTC`;
}

const sameEmail = (a: string, b: string) => a.trim().toLowerCase() === b.trim().toLowerCase();

/**
 * Why a recipient may not claim this voucher now, or null when they may. `replay` (the same
 * recipient claimed it already) is answered, not refused. The order matters: a claim by
 * someone else is final, so it is told before the expiry.
 *
 * A voucher with a recipient e-mail needs a session whose proven e-mail equals it (trimmed,
 * any letter case); anything else is 403. A voucher without one (an order without a customer
 * e-mail) is a bearer voucher: any signed-in user holding its id or reference number may
 * claim it, as with a gift card.
 */
export function claimRefusal(
  v: VoucherRecord,
  claimant: { userId: string; email: string | null; recipientEmail: string | null },
  now = new Date(),
): HallmarkError | 'replay' | null {
  if (v.claimedBy === claimant.userId) return 'replay';
  if (v.claimedBy) return refuse('This voucher has already been claimed.');
  if (v.voidedAt) return refuse('This voucher was voided: the order it was issued for was cancelled.');
  if (voucherStatus(v, now) === 'expired') return refuse(`This voucher expired on ${utc(v.expiresAt)}.`);
  // Fail closed: a voucher issued to an address is claimed only by a session proving that
  // address. No e-mail claim (or an empty, unverified or non-string one) is refused.
  if (claimant.recipientEmail && !(claimant.email && sameEmail(claimant.recipientEmail, claimant.email))) {
    return new HallmarkError('insufficient_permissions', {
      message: 'This voucher was issued to another e-mail address; sign in with that address to claim it.',
      extras: { required_permission: 'voucher_recipient' },
    });
  }
  if (v.certificateStatus === 'burned') return refuse('The certificate of this voucher was burned.');
  if (v.certificateStatus !== 'minted' || v.tokenId === null) {
    return refuse('The certificate of this voucher is still being minted; try again shortly.');
  }
  // After the recipient check, so only the voucher's recipient learns of another hand-over.
  if (v.unavailable === 'handover') {
    return handoverRefused(v.certificateId, v.otherHandover ? { kind: v.otherHandover, id: '' } : null, {
      param: 'voucher_id',
      doing: 'this voucher cannot be claimed',
    });
  }
  if (v.unavailable === 'moved')
    return refuse('The certificate of this voucher is no longer held by its issuer.');
  return null;
}

/** The voucher as events carry it (never the recipient's contact data). */
export function voucherEventObject(
  v: VoucherRecord,
  now = new Date(),
): Record<string, unknown> & { id: string } {
  return {
    id: v.id,
    url: v.url,
    referenceNumber: v.referenceNumber,
    metadata: v.metadata,
    certificateId: v.certificateId,
    status: voucherStatus(v, now),
    voidReason: v.voidReason,
    tokenId: v.tokenId === null ? null : Number(v.tokenId),
    transactionHash: v.transactionHash,
    blockNumber: v.blockNumber,
    expiresAt: v.expiresAt.toISOString(),
    lineItemGid: v.lineItemGid,
    createdAt: v.createdAt.toISOString(),
  };
}

/** A voucher's public view URL. */
export const voucherUrl = (publicUrl: string, id: string) =>
  `${publicUrl.replace(/\/+$/, '')}/vouchers/${encodeURIComponent(id)}`;

/** Vouchers whose events go out one per voucher; more go as certificate_voucher.batch. */
export const SINGLE_EVENTS_UP_TO = 10;
/** Vouchers per certificate_voucher.batch event (its JSON stays well under NATS's 1 MB). */
export const VOUCHERS_PER_BATCH_EVENT = 200;

/**
 * The events of vouchers created (`created`, those of them already minted also announced
 * minted) or minted: one per voucher and kind for a few, else certificate_voucher.batch events
 * of up to VOUCHERS_PER_BATCH_EVENT vouchers each.
 */
export function voucherEvents(
  created: readonly VoucherRecord[],
  minted: readonly VoucherRecord[],
): EventInput<EventType>[] {
  const owner = created[0] ?? minted[0];
  if (!owner) return [];
  if (created.length + minted.length <= SINGLE_EVENTS_UP_TO) {
    return [
      ...created.map((v) => newEvent('certificate_voucher.created', { object: voucherEventObject(v) }, v)),
      ...minted.map((v) => newEvent('certificate_voucher.minted', { object: voucherEventObject(v) }, v)),
    ];
  }
  const createdIds = new Set(created.map((v) => v.id));
  const mintedIds = new Set(minted.map((v) => v.id));
  const all = [...created, ...minted.filter((v) => !createdIds.has(v.id))];
  const events: EventInput<EventType>[] = [];
  for (let i = 0; i < all.length; i += VOUCHERS_PER_BATCH_EVENT) {
    const page = all.slice(i, i + VOUCHERS_PER_BATCH_EVENT);
    events.push(
      newEvent(
        'certificate_voucher.batch',
        {
          created: page.filter((v) => createdIds.has(v.id)).map((v) => voucherEventObject(v)),
          minted: page.filter((v) => mintedIds.has(v.id)).map((v) => voucherEventObject(v)),
        },
        owner,
      ),
    );
  }
  return events;
}
