// Pure rules of a gift: the create request, the claim token's shape and hash, the states and
// what each may become, and who may act on a gift. No I/O.
import { sha256Hex } from '@hallmark/kit/crypto';
import { HallmarkError, invalidParam, missingParam, notFound } from '@hallmark/kit/errors';
import { isId } from '@hallmark/kit/ids';
import { isEmailAddress } from '@hallmark/kit/text';

export type GiftStatus = 'pending' | 'claiming' | 'claimed' | 'revoked';
export const GIFT_STATUSES: readonly GiftStatus[] = ['pending', 'claiming', 'claimed', 'revoked'];

/** ListGifts' status filter: unset or empty is every status; anything else → parameter_invalid. */
export function parseStatusFilter(status: string | undefined): GiftStatus | null {
  if (!status) return null;
  if (!(GIFT_STATUSES as readonly string[]).includes(status))
    throw invalidParam('status', `status must be one of ${GIFT_STATUSES.join(', ')}.`);
  return status as GiftStatus;
}
/** A gift, or an owner's resale (a gift that records `resold` and may await the brand: ./resale.ts). */
export type GiftKind = 'gift' | 'resale';
/** A resale's brand approval (migration 3331): null when the brand's policy asks none. */
export type Approval = 'requested' | 'approved' | 'refused';
/** The claim link's notification: see migration 2001. */
export type NotificationState = 'pending' | 'sent' | 'failing' | 'failed';

export const MAX_MESSAGE_LENGTH = 500;
/** 32 random bytes in base64url: 43 characters. */
const TOKEN_RE = /^[A-Za-z0-9_-]{43}$/;
const E164_RE = /^\+[1-9]\d{6,14}$/;

export interface GiftRecord {
  id: string;
  enterpriseId: string;
  livemode: boolean;
  certificateId: string;
  creatorId: string;
  senderAddress: string;
  message: string | null;
  status: GiftStatus;
  expiresAt: Date;
  claimedBy: string | null;
  recipientAddress: string | null;
  transferAttempt: number;
  transactionHash: string | null;
  blockNumber: number | null;
  resendCount: number;
  createdAt: Date;
  claimedAt: Date | null;
  hasPhone: boolean;
  /** SHA-256 of the claim token (the token itself is never stored). */
  tokenHash: string;
  notification: NotificationState;
  /** The last send's error while `failing` or `failed`. */
  notificationError: string | null;
  kind: GiftKind;
  approval: Approval | null;
  /** The brand's reason for its decision (a refusal's is required). */
  approvalReason: string | null;
}

export interface CreateGiftInput {
  certificateId: string;
  recipientEmail: string;
  recipientPhone: string | null;
  message: string | null;
}

/** Validates a create request (API field names as `param`). */
export function parseCreateGift(req: {
  certificateId?: string;
  recipientEmail?: string;
  recipientPhone?: string;
  message?: string;
}): CreateGiftInput {
  if (!req.certificateId) throw missingParam('certificateId');
  if (!isId('certificate', req.certificateId)) throw notFound('certificate', req.certificateId);
  const email = (req.recipientEmail ?? '').trim();
  if (!email) throw missingParam('recipientEmail');
  if (!isEmailAddress(email))
    throw invalidParam('recipientEmail', 'recipientEmail must be a valid e-mail address.');
  let phone: string | null = null;
  if (req.recipientPhone !== undefined && req.recipientPhone !== '') {
    phone = req.recipientPhone.replace(/[\s().-]/g, '');
    if (!E164_RE.test(phone))
      throw invalidParam('recipientPhone', 'recipientPhone must be an E.164 number such as +15551234567.');
  }
  const message = req.message === undefined || req.message === '' ? null : req.message;
  if (message !== null && [...message].length > MAX_MESSAGE_LENGTH)
    throw invalidParam('message', `message must be at most ${MAX_MESSAGE_LENGTH} characters.`);
  return { certificateId: req.certificateId, recipientEmail: email, recipientPhone: phone, message };
}

/** A claim token as it may appear in a link; anything else is not a token at all. */
export const isClaimToken = (token: string): boolean => TOKEN_RE.test(token);

/** The stored form of a claim token. */
export const claimTokenHash = (token: string): string => sha256Hex(`gift-claim:${token}`);

/** The phone's look-up hash (of its E.164 form). */
export const phoneHash = (e164: string): string => sha256Hex(`gift-phone:${e164}`);

/** When a gift created at `now` expires. */
export const expiryOf = (now: Date, ttlHours: number): Date => new Date(now.getTime() + ttlHours * 3_600_000);

/** Whether a pending gift is past its expiry (the workflow's timer removes it soon after). */
export const isExpired = (g: Pick<GiftRecord, 'expiresAt'>, now: Date): boolean =>
  g.expiresAt.getTime() <= now.getTime();

/** The one transfer key of a claim attempt: derived from the gift, so a retry is the same transfer. */
export const transferKeyOf = (giftId: string, attempt: number): string =>
  attempt === 0 ? `gift:${giftId}` : `gift:${giftId}:${attempt}`;

/** Only the gift's creator resends or revokes it; others of the enterprise are refused. */
export function assertCreator(g: GiftRecord, actorId: string): void {
  if (g.creatorId !== actorId) {
    throw new HallmarkError('insufficient_permissions', {
      message: `Only the creator of a ${g.kind === 'resale' ? 'resale' : 'gift'} can resend or revoke it.`,
      extras: { required_permission: 'gift_creator' },
    });
  }
}

/** What a claim of this gift by `userId` at `now` does: take it, repeat the claim, or refuse. */
export function claimDecision(g: GiftRecord, userId: string, now: Date): 'take' | 'replay' | HallmarkError {
  if (g.status === 'claiming' || g.status === 'claimed')
    return g.claimedBy === userId ? 'replay' : invalidToken();
  if (g.status === 'revoked' || isExpired(g, now)) return invalidToken();
  // The link of a resale the brand has not approved was never sent: answered as unknown.
  if (awaitingApproval(g)) return invalidToken();
  return 'take';
}

/** Unknown, used, revoked and expired tokens are answered alike (nothing to learn from it). */
export const invalidToken = (): HallmarkError =>
  new HallmarkError('resource_not_found', {
    param: 'token',
    message: 'This claim link is not valid: it is unknown, already used, revoked or expired.',
  });

export const notPending = (g: GiftRecord): HallmarkError =>
  new HallmarkError('validation_failed', {
    param: 'transferId',
    message: `The ${g.kind === 'resale' ? 'resale' : 'gift'} is ${publicStatus(g, new Date())}; only a pending one (not awaiting approval) can be resent, and only a pending one revoked.`,
  });

/**
 * A failed send as the gift shows it: the error's code and message, with the recipient's
 * address or number taken out (contact data is stored encrypted only).
 */
export function notificationError(err: unknown, contacts: readonly (string | null)[]): string {
  const e = err instanceof HallmarkError ? `${err.code}: ${err.message}` : 'internal_error: the send failed';
  let text = e;
  for (const c of contacts) if (c) text = text.split(c).join('the recipient');
  return text.slice(0, 500);
}

/** A pending resale waiting for the brand's decision (its buyer has not been e-mailed). */
export const awaitingApproval = (g: Pick<GiftRecord, 'status' | 'approval'>): boolean =>
  g.status === 'pending' && g.approval === 'requested';

/**
 * The gift's status as the API shows it (an expired pending gift is about to be removed; a
 * resale waiting for the brand is `awaiting_approval`).
 */
export function publicStatus(g: GiftRecord, now: Date): string {
  if (g.status === 'pending' && isExpired(g, now)) return 'expired';
  return awaitingApproval(g) ? 'awaiting_approval' : g.status;
}
