// What every gift route shares: tag, auth and rate groups, schemas of the unversioned surface
// (spec › Endpoints › Certificates and gifts) and the gift as the API shows it.
import type { Gift } from '@hallmark/proto/certificates/v1/gifts';
import type { Access } from '../../endpoint/define.js';
import { bool, closed, nullable, oneOf, str, time, Type, type Static } from '../../endpoint/schema.js';
import { apiError } from '../shared.js';

export const TAGS = ['Gifts'];

/** Sender operations: a user session or an API key of the owning enterprise. */
export const SENDER: Access = { auth: 'either', scope: ['transactions.create', 'transactions.*'] };
/** The recipient's claim: a user session only (spec › Authentication 14). */
export const RECIPIENT = { auth: 'session' as const };
/** The claim page: no credential, per client address. */
export const PUBLIC = { auth: 'public' as const, rateGroup: 'public' as const };

/** A transfer id as it may appear in a path (gift_ + 24 base62; anything else is 404). */
export const transferIdParams = closed({
  transferId: Type.String({ minLength: 1, maxLength: 64, description: 'The gift’s transfer id (gift_…)' }),
});

/** A claim token as it may appear in a path (43 base64url characters when genuine). */
export const tokenParams = {
  type: 'object',
  required: ['token'],
  additionalProperties: false,
  properties: {
    token: {
      type: 'string',
      minLength: 1,
      maxLength: 128,
      description: 'The claim token from the claim link',
    },
  },
} as const;

export const ERRORS = {
  400: apiError('Validation failed (`parameter_invalid`, `parameter_missing`), naming the field in `param`'),
  401: apiError('Missing or invalid credential'),
  403: apiError('Authenticated but not permitted (`insufficient_permissions`)'),
  404: apiError('Unknown, or of another enterprise (`resource_not_found`)'),
  409: apiError(
    'The certificate is already in another pending hand-over, a voucher, gift or transfer (`resource_locked`)',
  ),
  422: apiError('Refused by the gift’s rules (`validation_failed`), naming the field in `param`'),
  429: apiError('Rate limited (`rate_limit_exceeded`, with `retry_after` and `Retry-After`)'),
  502: apiError('No sender credential (`sender_credential_missing`) or a notification provider failed'),
  503: apiError('Gifts are unavailable (no chain or encryption keys configured)'),
};

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

/** An HTML page's body. */
export const htmlPage = (description: string) => ({
  description,
  content: { 'text/html': { schema: { type: 'string', maxLength: 1_000_000 } } },
});

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
