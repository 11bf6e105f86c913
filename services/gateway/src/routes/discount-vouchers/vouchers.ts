// /api/v1/vouchers: list, create, get, update and delete discount vouchers.
import { defineEndpoint } from '../../endpoint/define.js';
import { bool, closed, idParams, list, nullable, oneOf, str, Type } from '../../endpoint/schema.js';
import { MAX_MINOR_UNITS, pageQuery } from '../bounds.js';
import { Pagination, presentPagination } from '../pagination.js';
import { principalOf } from '../shared.js';
import { CREATE, DELETE, READ, TAGS, UPDATE } from './access.js';
import { code, currency, uses } from './fields.js';
import { presentVoucher, Voucher } from './voucher.js';

const voucherParams = idParams('voucher_id');

export const listVouchers = defineEndpoint({
  method: 'GET',
  url: '/api/v1/vouchers',
  operationId: 'listVouchers',
  tags: TAGS,
  summary: 'List vouchers, newest first',
  access: READ,
  querystring: closed({
    ...pageQuery,
    status: Type.Optional(oneOf(['active', 'expired', 'used', 'inactive'])),
  }),
  responses: {
    200: {
      description: 'A page of vouchers, newest first',
      schema: Type.Object({ vouchers: list(Voucher, 100), pagination: Pagination }),
    },
  },
  handler: async (request, { clients }) => {
    const q = request.query;
    const res = await clients.vouchers.listVouchers(
      {
        principal: principalOf(request),
        page: { page: q.page ?? 1, limit: q.limit ?? 20 },
        status: q.status ?? '',
      },
      { idempotent: true },
    );
    return { vouchers: res.vouchers.map(presentVoucher), pagination: presentPagination(res.pagination!) };
  },
});

export const createVoucher = defineEndpoint({
  method: 'POST',
  url: '/api/v1/vouchers',
  operationId: 'createVoucher',
  tags: TAGS,
  summary: 'Create a voucher',
  access: CREATE,
  body: closed({
    code,
    type: oneOf(['percentage', 'fixed_amount']),
    value: Type.Number({
      minimum: 1,
      maximum: MAX_MINOR_UNITS,
      description:
        'percentage: a number from 1 to 100 with at most two decimals (12.5); fixed_amount: an ' +
        'integer, minor units (cents)',
    }),
    max_uses: Type.Optional(nullable(uses('Null or absent: unlimited'))),
    expires_at: Type.Optional(Type.String({ maxLength: 40, description: 'ISO 8601 date-time' })),
    description: Type.Optional(Type.String({ maxLength: 500 })),
    currency: Type.Optional(currency('fixed_amount only; three-letter code, default USD')),
    max_uses_per_customer: Type.Optional(uses('Redemptions allowed per customer_id')),
  }),
  responses: { 201: { description: 'The voucher', schema: Voucher } },
  handler: async (request, { clients }) => {
    const b = request.body;
    return presentVoucher(
      await clients.vouchers.createVoucher({
        principal: principalOf(request),
        code: b.code,
        type: b.type,
        value: b.value,
        max_uses: b.max_uses ?? undefined,
        expires_at: b.expires_at,
        description: b.description,
        currency: b.currency,
        max_uses_per_customer: b.max_uses_per_customer,
      }),
    );
  },
});

export const getVoucher = defineEndpoint({
  method: 'GET',
  url: '/api/v1/vouchers/:voucher_id',
  operationId: 'getVoucher',
  tags: TAGS,
  summary: 'Get a voucher',
  access: READ,
  params: voucherParams,
  responses: { 200: { description: 'The voucher', schema: Voucher } },
  handler: async (request, { clients }) =>
    presentVoucher(
      await clients.vouchers.getVoucher(
        { principal: principalOf(request), voucher_id: request.params.voucher_id },
        { idempotent: true },
      ),
    ),
});

export const updateVoucher = defineEndpoint({
  method: 'PATCH',
  url: '/api/v1/vouchers/:voucher_id',
  operationId: 'updateVoucher',
  tags: TAGS,
  summary: 'Set status (active/inactive) or max_uses',
  access: UPDATE,
  params: voucherParams,
  body: closed(
    {
      status: Type.Optional(oneOf(['active', 'inactive'])),
      max_uses: Type.Optional(nullable(uses('Null: unlimited'))),
    },
    { minProperties: 1 },
  ),
  responses: { 200: { description: 'The updated voucher', schema: Voucher } },
  handler: async (request, { clients }) => {
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
});

export const deleteVoucher = defineEndpoint({
  method: 'DELETE',
  url: '/api/v1/vouchers/:voucher_id',
  operationId: 'deleteVoucher',
  tags: TAGS,
  summary: 'Delete a voucher permanently',
  access: DELETE,
  params: voucherParams,
  responses: {
    200: {
      description: 'Deleted permanently',
      schema: Type.Object({ id: str(64), deleted: bool }),
    },
  },
  handler: async (request, { clients }) => {
    const res = await clients.vouchers.deleteVoucher({
      principal: principalOf(request),
      voucher_id: request.params.voucher_id,
    });
    return { id: res.id, deleted: res.deleted };
  },
});
