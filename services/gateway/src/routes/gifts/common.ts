// What every gift route shares: tag, auth and rate groups, schemas of the unversioned surface
// (spec › Endpoints › Certificates and gifts) and the gift as the API shows it.
import type { Gift } from '@hallmark/proto/certificates/v1/gifts';
import type { Access } from '../../endpoint/define.js';
import { bool, closed, nullable, oneOf, str, time, Type, type Static } from '../../endpoint/schema.js';

export const TAGS = ['Gifts'];

/** Sender operations: a user session or an API key of the owning enterprise. */
export const SENDER: Access = { auth: 'either', scope: ['transactions.create', 'transactions.*'] };
/** The recipient's claim: a user session only (spec › Authentication 14). */
export const RECIPIENT: Access = { auth: 'session' };
/** The claim page: no credential, per client address. */
export const PUBLIC: Access = { auth: 'public', rateGroup: 'public' };

/** A transfer id as it may appear in a path (gift_ + 24 base62; anything else is 404). */
export const transferIdParams = closed({
  transferId: Type.String({ minLength: 1, maxLength: 64, description: 'The gift’s transfer id (gift_…)' }),
});

/** A claim token as it may appear in a path (43 base64url characters when genuine). */
export const tokenParams = closed({
  token: Type.String({ minLength: 1, maxLength: 128, description: 'The claim token from the claim link' }),
});

const id = (description: string) => str(64, description);
const address = Type.String({ pattern: '^0x[0-9a-fA-F]{40}$', maxLength: 42 });
/** A transaction hash, 0x + 32 bytes hex. */
export const txHash = Type.Unsafe<string | null>({
  type: ['string', 'null'],
  pattern: '^0x[0-9a-f]{64}$',
  maxLength: 66,
});
export const giftStatus = oneOf(
  ['pending', 'claiming', 'claimed', 'revoked', 'expired'],
  '`claiming`: taken by its recipient, chain transfer on its way; `expired`: past expiresAt, about to be removed',
);
/** Always null: Hallmark has no account abstraction. */
export const userOperationHash = Type.Null({ description: 'Always null (no account abstraction)' });

export const giftSchema = Type.Object(
  {
    transferId: id('gift_…'),
    certificateId: id('cert_…'),
    status: giftStatus,
    senderAddress: address,
    recipientAddress: Type.Optional(nullable(address)),
    expiresAt: time,
    createdAt: time,
    claimedAt: Type.Optional(nullable(time)),
    transactionHash: Type.Optional(txHash),
    userOperationHash: Type.Optional(userOperationHash),
    livemode: Type.Optional(bool),
    notification: Type.Optional(
      oneOf(
        ['pending', 'sent', 'failing', 'failed'],
        'The claim link’s e-mail (and SMS): `failing` while sends fail and are retried, `failed` once retries stopped (resend to try again)',
      ),
    ),
    notificationError: Type.Optional(
      nullable(str(500, 'The last send’s error while `failing` or `failed`, else null')),
    ),
  },
  { additionalProperties: false },
);

export function presentGift(g: Gift): Static<typeof giftSchema> {
  return {
    transferId: g.id,
    certificateId: g.certificate_id,
    status: g.status,
    senderAddress: g.sender_address,
    recipientAddress: g.recipient_address ?? null,
    expiresAt: g.expires_at,
    createdAt: g.created_at,
    claimedAt: g.claimed_at ?? null,
    transactionHash: g.transaction_hash ?? null,
    userOperationHash: null,
    livemode: g.livemode,
    notification: g.notification || 'pending',
    notificationError: g.notification_error ?? null,
  };
}
