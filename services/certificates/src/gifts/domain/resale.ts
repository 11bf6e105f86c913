// Pure rules of a resale (docs/resale.md): an owner's gift of kind `resale` to a buyer's
// e-mail. Its create request, the brand's decision, and the resale as the API and its
// versioned webhooks show it (no buyer contact data). No I/O.
import { HallmarkError, invalidParam, missingParam } from '@hallmark/kit/errors';
import { isEmailAddress } from '@hallmark/kit/text';
import {
  parseCreateGift,
  publicStatus,
  type Approval,
  type CreateGiftInput,
  type GiftRecord,
} from './gift.js';

export const MAX_REASON_LENGTH = 500;

/** Validates a resale's create request (API field names as `param`). */
export function parseCreateResale(req: {
  certificateId?: string;
  buyerEmail?: string;
  message?: string;
}): CreateGiftInput {
  const email = (req.buyerEmail ?? '').trim();
  if (!email) throw missingParam('buyerEmail');
  if (!isEmailAddress(email)) throw invalidParam('buyerEmail', 'buyerEmail must be a valid e-mail address.');
  return parseCreateGift({ certificateId: req.certificateId, recipientEmail: email, message: req.message });
}

/** The brand's decision: a refusal needs a reason (the owner is told why); both ≤ 500 characters. */
export function parseDecision(approve: boolean, reason: string | undefined): { reason: string | null } {
  const r = (reason ?? '').trim();
  if (!approve && !r) throw missingParam('reason');
  if ([...r].length > MAX_REASON_LENGTH)
    throw invalidParam('reason', `reason must be at most ${MAX_REASON_LENGTH} characters.`);
  return { reason: r || null };
}

/** Only a resale waiting for the brand can be decided; anything else says what it is. */
export function notAwaiting(g: GiftRecord, now: Date): HallmarkError {
  return new HallmarkError('validation_failed', {
    param: 'resaleId',
    message: `The resale is ${publicStatus(g, now)}; only a resale awaiting approval can be approved or refused.`,
  });
}

/** The brand decides by API key; the seller (or anyone signed in as a user) never does. */
export function assertBrandDecides(actorType: string): void {
  if (actorType !== 'api_key') {
    throw new HallmarkError('insufficient_permissions', {
      message: "A resale is approved or refused by the brand's API key, not a user session.",
      extras: { required_permission: 'api_key' },
    });
  }
}

/** What a resale is as events and the API show it. */
export interface ResaleView {
  id: string;
  certificate_id: string;
  token_id: number | null;
  status: string;
  approval: Approval | null;
  approval_reason: string | null;
  seller_address: string;
  buyer_address: string | null;
  transaction_hash: string | null;
  expires_at: string;
  created_at: string;
  livemode: boolean;
}

export function resaleView(g: GiftRecord, tokenId: number | null, now = new Date()): ResaleView {
  return {
    id: g.id,
    certificate_id: g.certificateId,
    token_id: tokenId,
    status: publicStatus(g, now),
    approval: g.approval,
    approval_reason: g.approvalReason,
    seller_address: g.senderAddress,
    buyer_address: g.recipientAddress,
    transaction_hash: g.transactionHash,
    expires_at: g.expiresAt.toISOString(),
    created_at: g.createdAt.toISOString(),
    livemode: g.livemode,
  };
}
