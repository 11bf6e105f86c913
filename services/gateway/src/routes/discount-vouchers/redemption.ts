// Redeem a code against an order, its dry run (validate), and the rollback that gives the
// use back. The `Redemption` resource is what redeem and validate both answer.
import type { RedemptionResult } from '@hallmark/proto/vouchers/v1/vouchers';
import { defineEndpoint } from '../../endpoint/define.js';
import { defineResource } from '../../endpoint/resource.js';
import { bool, closed, int, nullable, str, time, Type, type Static } from '../../endpoint/schema.js';
import { MAX_MINOR_UNITS } from '../bounds.js';
import { principalOf } from '../shared.js';
import { REDEEM, TAGS, UPDATE, VALIDATE } from './access.js';
import { code, currency } from './fields.js';
import { presentVoucher, Voucher, voucherId, voucherType } from './voucher.js';

export const Redemption = defineResource(
  'Redemption',
  Type.Object({
    success: bool,
    voucher: Type.Optional(
      Type.Object({ id: voucherId, code: str(32), type: voucherType, value: Type.Number() }),
    ),
    discount_applied: nullable(
      int(
        'Minor units. Without `amount`: a fixed_amount voucher’s value; null for a percentage voucher ' +
          '(the caller applies `voucher.value` % to its order)',
      ),
    ),
    original_amount: nullable(int('Minor units: the request’s `amount`; null without one')),
    final_amount: nullable(int('Minor units: original − discount; null without `amount`')),
    currency: Type.Optional(str(3)),
    order_id: Type.Optional(str()),
    transaction_id: Type.Optional(nullable(str(64))),
    redeemed_at: Type.Optional(nullable(time)),
    replayed: Type.Optional(
      Type.Boolean({ description: 'True when this order had already redeemed the voucher' }),
    ),
  }),
);

function presentRedemption(r: RedemptionResult): Static<typeof Redemption> {
  return {
    success: r.success,
    voucher: r.voucher,
    discount_applied: r.discount_applied ?? null,
    original_amount: r.original_amount ?? null,
    final_amount: r.final_amount ?? null,
    currency: r.currency,
    order_id: r.order_id,
    transaction_id: r.transaction_id || null,
    redeemed_at: r.redeemed_at || null,
    replayed: r.replayed,
  };
}

const RedeemBody = closed({
  code,
  order_id: Type.String({ minLength: 1, maxLength: 255 }),
  amount: Type.Optional(
    Type.Integer({
      format: 'int64',
      minimum: 0,
      maximum: MAX_MINOR_UNITS,
      description:
        'Order amount before discount, integer minor units; optional (the spec’s body is `code` and ' +
        '`order_id`). With it the result has `original_amount`, `discount_applied` (a percentage ' +
        'rounded half-up to the minor unit; a fixed amount capped at the order) and `final_amount`. ' +
        'Without it a fixed_amount voucher’s `discount_applied` is its value, and a percentage ' +
        'voucher’s is null: the use is recorded and the caller applies `voucher.value` % to its ' +
        'order; `original_amount` and `final_amount` are null. A replay must repeat the same amount ' +
        '(or none).',
    }),
  ),
  currency: Type.Optional(
    currency('Three-letter code, answered in capitals (`USD`); defaults to the voucher currency or USD'),
  ),
  customer_id: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
});

const orderOf = (b: Static<typeof RedeemBody>) => ({
  code: b.code,
  order_id: b.order_id,
  amount: b.amount,
  currency: b.currency ?? '',
  customer_id: b.customer_id,
});

export const redeemVoucher = defineEndpoint({
  method: 'POST',
  url: '/api/v1/vouchers/redeem',
  operationId: 'redeemVoucher',
  tags: TAGS,
  summary: 'Redeem a code against an order (idempotent per voucher and order_id)',
  access: REDEEM,
  body: RedeemBody,
  responses: { 200: { description: 'The redemption result', schema: Redemption } },
  handler: async (request, { clients }) =>
    presentRedemption(
      await clients.vouchers.redeemVoucher({ principal: principalOf(request), ...orderOf(request.body) }),
    ),
});

export const validateVoucher = defineEndpoint({
  method: 'POST',
  url: '/api/v1/vouchers/validate',
  operationId: 'validateVoucher',
  tags: TAGS,
  summary: 'Dry run of redeem: same answer, nothing consumed',
  access: VALIDATE,
  body: RedeemBody,
  responses: { 200: { description: 'What redeem would answer; nothing consumed', schema: Redemption } },
  handler: async (request, { clients }) =>
    presentRedemption(
      await clients.vouchers.validateVoucher({ principal: principalOf(request), ...orderOf(request.body) }),
    ),
});

export const rollbackRedemption = defineEndpoint({
  method: 'POST',
  url: '/api/v1/vouchers/:voucher_id/redemptions/:order_id/rollback',
  operationId: 'rollbackRedemption',
  tags: TAGS,
  summary: 'Give back the use an order consumed (e.g. a refund); idempotent',
  access: UPDATE,
  params: Type.Object({
    voucher_id: Type.String({ maxLength: 64 }),
    order_id: Type.String({ minLength: 1, maxLength: 255 }),
  }),
  responses: {
    200: {
      description: 'The redemption is undone and the use given back (once; a repeat says so)',
      schema: Type.Object({
        voucher: Voucher,
        order_id: str(255),
        transaction_id: Type.Optional(nullable(str(64))),
        rolled_back_at: Type.Optional(nullable(time)),
        already_rolled_back: bool,
      }),
    },
  },
  handler: async (request, { clients }) => {
    const res = await clients.vouchers.rollbackRedemption({
      principal: principalOf(request),
      voucher_id: request.params.voucher_id,
      order_id: request.params.order_id,
    });
    return {
      voucher: presentVoucher(res.voucher!),
      order_id: res.order_id,
      transaction_id: res.transaction_id,
      rolled_back_at: res.rolled_back_at,
      already_rolled_back: res.already_rolled_back,
    };
  },
});
