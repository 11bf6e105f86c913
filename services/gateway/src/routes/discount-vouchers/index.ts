// /api/v1/vouchers: discount vouchers. Scopes per architecture.md: transactions.read
// (list, get, validate), transactions.create (create, redeem), transactions.update
// (update, rollback), transactions.delete. Rate groups per the spec's voucher rows.
import type { RedemptionResult, Voucher } from '@hallmark/proto/vouchers/v1/vouchers';
import type { FastifyInstance } from 'fastify';
import { MAX_MINOR_UNITS, MAX_USES, pageQuery } from '../bounds.js';
import { idParam, principalOf, type RouteDeps } from '../shared.js';

const TAGS = ['Discount vouchers'];
const READ = { auth: 'either' as const, scope: 'transactions.read', rateGroup: 'voucher_read' as const };
const CREATE = { auth: 'either' as const, scope: 'transactions.create', rateGroup: 'voucher_write' as const };
const UPDATE = { auth: 'either' as const, scope: 'transactions.update', rateGroup: 'voucher_write' as const };
const DELETE = { auth: 'either' as const, scope: 'transactions.delete', rateGroup: 'voucher_write' as const };
const REDEEM = {
  auth: 'either' as const,
  scope: 'transactions.create',
  rateGroup: 'voucher_redeem' as const,
};
const VALIDATE = {
  auth: 'either' as const,
  scope: ['transactions.read', 'transactions.create'],
  rateGroup: 'voucher_redeem' as const,
};

export function presentVoucher(v: Voucher) {
  return {
    id: v.id,
    code: v.code,
    type: v.type,
    value: v.value,
    status: v.status,
    uses_remaining: v.uses_remaining ?? null,
    max_uses: v.max_uses ?? null,
    expires_at: v.expires_at ?? null,
    created_at: v.created_at,
    updated_at: v.updated_at,
    description: v.description ?? null,
    currency: v.currency ?? null,
    max_uses_per_customer: v.max_uses_per_customer ?? null,
    times_used: v.times_used,
    livemode: v.livemode,
  };
}

function presentRedemption(r: RedemptionResult) {
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

/** spec › Limits 3: 4 to 32 alphanumeric characters. */
const code = { type: 'string', minLength: 4, maxLength: 32, pattern: '^[A-Za-z0-9]+$' };
const minorUnits = (description: string) => ({
  type: 'integer',
  format: 'int64',
  minimum: 0,
  maximum: MAX_MINOR_UNITS,
  description,
});
const uses = (description: string) => ({
  type: 'integer',
  format: 'int64',
  minimum: 1,
  maximum: MAX_USES,
  description,
});
const currency = { type: 'string', pattern: '^[A-Za-z]{3}$', minLength: 3, maxLength: 3 };
const redeemBody = {
  type: 'object',
  required: ['code', 'order_id'],
  additionalProperties: false,
  properties: {
    code,
    order_id: { type: 'string', minLength: 1, maxLength: 255 },
    amount: {
      ...minorUnits(
        'Order amount before discount, integer minor units; optional (the spec’s body is `code` and ' +
          '`order_id`). With it the result has `original_amount`, `discount_applied` (a percentage ' +
          'rounded half-up to the minor unit; a fixed amount capped at the order) and `final_amount`. ' +
          'Without it a fixed_amount voucher’s `discount_applied` is its value, and a percentage ' +
          'voucher’s is null: the use is recorded and the caller applies `voucher.value` % to its ' +
          'order; `original_amount` and `final_amount` are null. A replay must repeat the same amount ' +
          '(or none).',
      ),
    },
    currency: {
      ...currency,
      description: 'Three-letter code, answered in capitals (`USD`); defaults to the voucher currency or USD',
    },
    customer_id: { type: 'string', minLength: 1, maxLength: 255 },
  },
};

interface RedeemBody {
  code: string;
  order_id: string;
  amount?: number;
  currency?: string;
  customer_id?: string;
}

export default async function discountVouchers(app: FastifyInstance, { clients }: RouteDeps) {
  const voucherId = idParam('voucher_id');

  app.get<{ Querystring: { page?: number; limit?: number; status?: string } }>(
    '/api/v1/vouchers',
    {
      config: READ,
      schema: {
        tags: TAGS,
        summary: 'List vouchers, newest first',
        querystring: {
          type: 'object',
          additionalProperties: false,
          properties: {
            ...pageQuery,
            status: { type: 'string', enum: ['active', 'expired', 'used', 'inactive'] },
          },
        },
      },
    },
    async (request) => {
      const q = request.query;
      const res = await clients.vouchers.listVouchers(
        {
          principal: principalOf(request),
          page: { page: q.page ?? 1, limit: q.limit ?? 20 },
          status: q.status ?? '',
        },
        { idempotent: true },
      );
      const p = res.pagination!;
      return {
        vouchers: res.vouchers.map(presentVoucher),
        pagination: { page: p.page, limit: p.limit, total: p.total, total_pages: p.total_pages },
      };
    },
  );

  app.post<{
    Body: {
      code: string;
      type: string;
      value: number;
      max_uses?: number | null;
      expires_at?: string;
      description?: string;
      currency?: string;
      max_uses_per_customer?: number;
    };
  }>(
    '/api/v1/vouchers',
    {
      config: CREATE,
      schema: {
        tags: TAGS,
        summary: 'Create a voucher',
        body: {
          type: 'object',
          required: ['code', 'type', 'value'],
          additionalProperties: false,
          properties: {
            code,
            type: { type: 'string', enum: ['percentage', 'fixed_amount'] },
            value: {
              type: 'number',
              minimum: 1,
              maximum: MAX_MINOR_UNITS,
              description:
                'percentage: a number from 1 to 100 with at most two decimals (12.5); fixed_amount: an ' +
                'integer, minor units (cents)',
            },
            max_uses: { ...uses('Null or absent: unlimited'), type: ['integer', 'null'] },
            expires_at: { type: 'string', maxLength: 40, description: 'ISO 8601 date-time' },
            description: { type: 'string', maxLength: 500 },
            currency: { ...currency, description: 'fixed_amount only; three-letter code, default USD' },
            max_uses_per_customer: uses('Redemptions allowed per customer_id'),
          },
        },
      },
    },
    async (request, reply) => {
      const b = request.body;
      const v = await clients.vouchers.createVoucher({
        principal: principalOf(request),
        code: b.code,
        type: b.type,
        value: b.value,
        max_uses: b.max_uses ?? undefined,
        expires_at: b.expires_at,
        description: b.description,
        currency: b.currency,
        max_uses_per_customer: b.max_uses_per_customer,
      });
      return reply.status(201).send(presentVoucher(v));
    },
  );

  app.get<{ Params: { voucher_id: string } }>(
    '/api/v1/vouchers/:voucher_id',
    { config: READ, schema: { tags: TAGS, summary: 'Get a voucher', params: voucherId } },
    async (request) =>
      presentVoucher(
        await clients.vouchers.getVoucher(
          { principal: principalOf(request), voucher_id: request.params.voucher_id },
          { idempotent: true },
        ),
      ),
  );

  app.patch<{ Params: { voucher_id: string }; Body: { status?: string; max_uses?: number | null } }>(
    '/api/v1/vouchers/:voucher_id',
    {
      config: UPDATE,
      schema: {
        tags: TAGS,
        summary: 'Set status (active/inactive) or max_uses',
        params: voucherId,
        body: {
          type: 'object',
          minProperties: 1,
          additionalProperties: false,
          properties: {
            status: { type: 'string', enum: ['active', 'inactive'] },
            max_uses: { ...uses('Null: unlimited'), type: ['integer', 'null'] },
          },
        },
      },
    },
    async (request) => {
      const b = request.body;
      return presentVoucher(
        await clients.vouchers.updateVoucher({
          principal: principalOf(request),
          voucher_id: request.params.voucher_id,
          status: b.status,
          max_uses: b.max_uses ?? undefined,
          clear_max_uses: b.max_uses === null,
        }),
      );
    },
  );

  app.delete<{ Params: { voucher_id: string } }>(
    '/api/v1/vouchers/:voucher_id',
    { config: DELETE, schema: { tags: TAGS, summary: 'Delete a voucher permanently', params: voucherId } },
    async (request) => {
      const res = await clients.vouchers.deleteVoucher({
        principal: principalOf(request),
        voucher_id: request.params.voucher_id,
      });
      return { id: res.id, deleted: res.deleted };
    },
  );

  app.post<{ Body: RedeemBody }>(
    '/api/v1/vouchers/redeem',
    {
      config: REDEEM,
      schema: {
        tags: TAGS,
        summary: 'Redeem a code against an order (idempotent per voucher and order_id)',
        body: redeemBody,
      },
    },
    async (request) => {
      const b = request.body;
      return presentRedemption(
        await clients.vouchers.redeemVoucher({
          principal: principalOf(request),
          code: b.code,
          order_id: b.order_id,
          amount: b.amount,
          currency: b.currency ?? '',
          customer_id: b.customer_id,
        }),
      );
    },
  );

  app.post<{ Body: RedeemBody }>(
    '/api/v1/vouchers/validate',
    {
      config: VALIDATE,
      schema: { tags: TAGS, summary: 'Dry run of redeem: same answer, nothing consumed', body: redeemBody },
    },
    async (request) => {
      const b = request.body;
      return presentRedemption(
        await clients.vouchers.validateVoucher({
          principal: principalOf(request),
          code: b.code,
          order_id: b.order_id,
          amount: b.amount,
          currency: b.currency ?? '',
          customer_id: b.customer_id,
        }),
      );
    },
  );

  app.post<{ Params: { voucher_id: string; order_id: string } }>(
    '/api/v1/vouchers/:voucher_id/redemptions/:order_id/rollback',
    {
      config: UPDATE,
      schema: {
        tags: TAGS,
        summary: 'Give back the use an order consumed (e.g. a refund); idempotent',
        params: {
          type: 'object',
          required: ['voucher_id', 'order_id'],
          properties: {
            voucher_id: { type: 'string', maxLength: 64 },
            order_id: { type: 'string', minLength: 1, maxLength: 255 },
          },
        },
      },
    },
    async (request) => {
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
  );
}
