// The issuer voids an unclaimed certificate voucher: its page says `voided` with the reason, it
// can no longer be claimed, and its certificate stays with the issuer, free for another
// hand-over (a gift, a transfer). The same service call the platform makes when an order is
// cancelled. Only a voucher id (v_…), not a reference number: voiding is an API call, not
// something typed from a card.
import { HallmarkError } from '@hallmark/kit';
import { defineEndpoint, type Access } from '../../endpoint/define.js';
import { closed, idParams, nullable, oneOf, str, Type } from '../../endpoint/schema.js';
import { principalOf } from '../shared.js';
import { notFound, TAGS } from './common.js';

const VOIDER: Access = { auth: 'either', scope: 'transactions.delete' };
const DEFAULT_REASON = 'Voided by the issuer.';

export const voidCertificateVoucher = defineEndpoint({
  method: 'POST',
  url: '/api/certificates/vouchers/:voucherId/void',
  operationId: 'voidCertificateVoucher',
  tags: TAGS,
  summary: 'Void an unclaimed certificate voucher',
  description:
    'The voucher’s page then says it was voided, with `reason` (default “Voided by the issuer.”), and it ' +
    'cannot be claimed; its certificate stays with the issuer, free for a gift or a transfer. Voiding a ' +
    'voided voucher answers it again; a claimed voucher: 422; another enterprise’s or mode’s: 404.',
  access: VOIDER,
  params: idParams('voucherId'),
  body: nullable(
    closed({ reason: Type.Optional(str(200, 'Shown on the voucher’s page (at most 200 characters)')) }),
  ),
  responses: {
    200: {
      description: 'Voided',
      schema: Type.Object(
        {
          success: Type.Literal(true),
          data: Type.Object({ id: str(64), status: oneOf(['voided']) }, { additionalProperties: false }),
        },
        { additionalProperties: false },
      ),
    },
  },
  handler: async (request, { clients }) => {
    const id = request.params.voucherId;
    if (!/^v_[0-9A-Za-z]{1,62}$/.test(id)) throw notFound(id);
    const r = await clients.certificateVouchers.voidVouchers({
      principal: principalOf(request),
      voucher_ids: [id],
      reason: request.body?.reason?.trim() || DEFAULT_REASON,
    });
    if (r.voided_ids.includes(id)) return { success: true as const, data: { id, status: 'voided' } };
    if (r.claimed_ids.includes(id))
      throw new HallmarkError('validation_failed', {
        message: `Voucher ${id} was already claimed: its certificate has left the issuer, so it cannot be voided.`,
      });
    throw notFound(id);
  },
});
