// What the resale routes share (docs/resale.md): tag, access, and the resale as the API shows it.
import type { Resale } from '@hallmark/proto/certificates/v1/resale';
import type { Access } from '../../endpoint/define.js';
import { bool, closed, int, nullable, oneOf, str, time, Type, type Static } from '../../endpoint/schema.js';
import { txHash } from '../gifts/common.js';

export const TAGS = ['Resale'];

/** The owner: a user session (its proven e-mail is the sign-in the service requires). */
export const OWNER: Access = { auth: 'session' };
/** The brand's system decides: an API key (never a session, which an owner also holds). */
export const BRAND_DECIDE: Access = { auth: 'key', scope: ['transactions.update', 'transactions.*'] };
export const BRAND_POLICY: Access = { auth: 'key', scope: 'admin.*' };
/** A resale's read: its seller (session) or the brand's key. */
export const READ: Access = { auth: 'either', scope: ['transactions.read', 'transactions.*'] };
/** The public proof of ownership: no credential, per client address. */
export const PUBLIC: Access = { auth: 'public', rateGroup: 'public' };

export const resaleIdParams = closed({
  resaleId: Type.String({ minLength: 1, maxLength: 64, description: 'The resale’s id (gift_…)' }),
});

const address = Type.String({ pattern: '^0x[0-9a-fA-F]{40}$', maxLength: 42 });

export const resaleSchema = Type.Object(
  {
    resaleId: str(64, 'gift_… (a resale is a gift of kind resale: its claim link is a gift claim link)'),
    certificateId: str(64, 'cert_…'),
    tokenId: nullable(int()),
    status: oneOf(
      ['pending', 'awaiting_approval', 'claiming', 'claimed', 'revoked', 'expired'],
      '`awaiting_approval`: the brand has not decided (the buyer has not been e-mailed); `revoked`: cancelled by the owner or refused by the brand',
    ),
    approval: Type.Unsafe<string | null>({
      type: ['string', 'null'],
      enum: ['requested', 'approved', 'refused', null],
      description: 'null when the brand’s policy asks none',
    }),
    approvalReason: nullable(str(500, 'The brand’s reason')),
    sellerAddress: address,
    buyerAddress: nullable(address),
    transactionHash: txHash,
    expiresAt: time,
    createdAt: time,
    livemode: bool,
    notification: oneOf(['pending', 'sent', 'failing', 'failed'], 'The buyer’s e-mail with the claim link'),
  },
  { additionalProperties: false },
);

export function presentResale(r: Resale): Static<typeof resaleSchema> {
  return {
    resaleId: r.id,
    certificateId: r.certificate_id,
    tokenId: r.token_id ?? null,
    status: r.status,
    approval: r.approval ?? null,
    approvalReason: r.approval_reason ?? null,
    sellerAddress: r.seller_address,
    buyerAddress: r.buyer_address ?? null,
    transactionHash: r.transaction_hash ?? null,
    expiresAt: r.expires_at,
    createdAt: r.created_at,
    livemode: r.livemode,
    notification: r.notification || 'pending',
  };
}

export const ResaleReply = Type.Object(
  { success: Type.Literal(true), resale: resaleSchema },
  { additionalProperties: false },
);
