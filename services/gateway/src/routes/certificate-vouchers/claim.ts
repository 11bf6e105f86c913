// POST /api/certificates/vouchers/:id/claim: the recipient's user session claims a voucher
// and its certificate's token moves to the recipient's own custodial wallet. Rate group
// `voucher_redeem` (claiming is redeeming a voucher), counted per enterprise for sessions.
import type { FastifyRequest } from 'fastify';
import type { Access } from '../../endpoint/define.js';
import { defineEndpoint } from '../../endpoint/define.js';
import { bool, int, nullable, str, Type, wrapped } from '../../endpoint/schema.js';
import { principalOf } from '../shared.js';
import { ID_RE, idParams, notFound, TAGS } from './common.js';

const CLAIM: Access = { auth: 'session', rateGroup: 'voucher_redeem' };
/** A claim waits (bounded) for the chain transfer to confirm. */
const CLAIM_DEADLINE_MS = 30_000;

/**
 * The e-mail the request's session proves (its JWT `email` claim: a valid address, with
 * `email_verified` absent or the boolean true; auth/session.ts › provenEmail), or null. The
 * claim compares it with the voucher's recipient and refuses when the voucher has one and
 * this is null.
 */
function sessionEmail(request: FastifyRequest): string | null {
  return request.auth?.kind === 'session' ? (request.auth.email ?? null) : null;
}

const Claim = wrapped(
  Type.Object({
    voucherId: str(64),
    status: Type.Unsafe<string>({
      type: 'string',
      enum: ['confirmed', 'pending'],
      description: 'The chain transfer',
    }),
    voucherStatus: str(32),
    transactionHash: nullable(str(66)),
    blockNumber: nullable(int()),
    toAddress: Type.Optional(str(64)),
    certificateId: str(64),
    replayed: bool,
  }),
);

export const claimCertificateVoucher = defineEndpoint({
  method: 'POST',
  url: '/api/certificates/vouchers/:id/claim',
  operationId: 'claimCertificateVoucher',
  tags: TAGS,
  summary:
    "Claim a voucher with the recipient's user session: its certificate moves to the recipient's wallet",
  description:
    'A user session only (an API key is refused). 200 when the chain transfer is confirmed, 202 while it ' +
    'is still on its way. The same recipient claiming again gets the same answer; a voucher claimed by ' +
    'someone else, expired, or whose certificate is still being minted or no longer with the issuer is ' +
    'refused (422); one whose certificate is in another pending hand-over (a gift or transfer) is 409 ' +
    '`resource_locked`; a voucher ' +
    "issued to another e-mail address than the session's is refused (403). A test-mode voucher is claimed " +
    'with `Hallmark-Mode: test`; a voucher of the other mode than the session is 404.',
  access: CLAIM,
  params: idParams,
  responses: {
    200: { description: 'Claimed: the transfer is confirmed on chain', schema: Claim },
    202: { description: 'Claimed: the transfer is on its way (`status: pending`)', schema: Claim },
  },
  handler: async (request, { clients, reply }) => {
    const { id } = request.params;
    if (!ID_RE.test(id)) throw notFound(id);
    const res = await clients.certificateVouchers.claimVoucher(
      {
        principal: principalOf(request),
        voucher_id: id,
        recipient_email: sessionEmail(request) ?? undefined,
      },
      { deadlineMs: CLAIM_DEADLINE_MS, idempotent: true },
    );
    const v = res.voucher!;
    reply.status(res.transfer_status === 'confirmed' ? 200 : 202);
    return {
      success: true as const,
      data: {
        voucherId: v.id,
        status: res.transfer_status,
        voucherStatus: v.status,
        transactionHash: res.transaction_hash ?? null,
        blockNumber: res.block_number ?? null,
        toAddress: res.to_address,
        certificateId: v.certificate_id,
        replayed: res.replayed,
      },
    };
  },
});
