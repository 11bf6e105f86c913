// gRPC handlers: proto <-> domain, nothing else.
import { isId, missingParam, notFound, type AsyncHandlers } from '@hallmark/kit';
import type { Principal } from '@hallmark/proto/common/v1/common';
import type { Voucher, VouchersServiceServer } from '@hallmark/proto/vouchers/v1/vouchers';
import { parseCreate, parseList, parseRedeem, parseUpdate } from './domain/validation.js';
import { toView, type Scope } from './domain/voucher.js';
import type { RedemptionsStore } from './redemptions.js';
import type { VoucherRead, VouchersStore } from './store.js';

export function scopeOf(p: Principal | undefined): Scope {
  if (!p?.enterprise_id) throw missingParam('principal');
  return { enterpriseId: p.enterprise_id, livemode: p.livemode, actorId: p.actor_id };
}

/** Proto has no null: an absent optional field is the JSON null of the spec. */
export function toProto({ voucher, now }: VoucherRead): Voucher {
  const v = toView(voucher, now);
  return {
    ...v,
    uses_remaining: v.uses_remaining ?? undefined,
    max_uses: v.max_uses ?? undefined,
    expires_at: v.expires_at ?? undefined,
    description: v.description ?? undefined,
    currency: v.currency ?? undefined,
    max_uses_per_customer: v.max_uses_per_customer ?? undefined,
  };
}

/** Ids are checked for shape before any lookup; a malformed id is simply not found. */
function voucherId(id: string): string {
  if (!isId('voucher', id)) throw notFound('voucher', id);
  return id;
}

export function createVouchersHandlers(
  vouchers: VouchersStore,
  redemptions: RedemptionsStore,
): AsyncHandlers<VouchersServiceServer> {
  return {
    async createVoucher(req) {
      const scope = scopeOf(req.principal);
      const input = parseCreate(
        {
          code: req.code,
          type: req.type,
          value: req.value,
          maxUses: req.max_uses,
          expiresAt: req.expires_at,
          description: req.description,
          currency: req.currency,
          maxUsesPerCustomer: req.max_uses_per_customer,
        },
        new Date(),
      );
      return toProto(await vouchers.create(scope, input));
    },

    async listVouchers(req) {
      const scope = scopeOf(req.principal);
      const q = parseList({ page: req.page?.page, limit: req.page?.limit, status: req.status });
      const { vouchers: page, total } = await vouchers.list(scope, q);
      return {
        vouchers: page.map(toProto),
        pagination: { page: q.page, limit: q.limit, total, total_pages: Math.ceil(total / q.limit) },
      };
    },

    async getVoucher(req) {
      const scope = scopeOf(req.principal);
      return toProto(await vouchers.getOrThrow(scope, voucherId(req.voucher_id)));
    },

    async updateVoucher(req) {
      const scope = scopeOf(req.principal);
      const patch = parseUpdate({
        status: req.status,
        maxUses: req.max_uses,
        clearMaxUses: req.clear_max_uses,
      });
      return toProto(await vouchers.update(scope, voucherId(req.voucher_id), patch));
    },

    async deleteVoucher(req) {
      const scope = scopeOf(req.principal);
      const gone = await vouchers.delete(scope, voucherId(req.voucher_id));
      return { id: gone.voucher.id, deleted: true };
    },

    async redeemVoucher(req) {
      const scope = scopeOf(req.principal);
      const input = parseRedeem({
        code: req.code,
        orderId: req.order_id,
        amount: req.amount,
        currency: req.currency,
        customerId: req.customer_id,
      });
      return await redemptions.redeem(scope, input);
    },

    async validateVoucher(req) {
      const scope = scopeOf(req.principal);
      const input = parseRedeem({
        code: req.code,
        orderId: req.order_id,
        amount: req.amount,
        currency: req.currency,
        customerId: req.customer_id,
      });
      return await redemptions.validate(scope, input);
    },

    async rollbackRedemption(req) {
      const scope = scopeOf(req.principal);
      if (!req.order_id) throw missingParam('order_id');
      const out = await redemptions.rollback(scope, voucherId(req.voucher_id), req.order_id);
      return {
        voucher: toProto(out.voucher),
        order_id: out.redemption.orderId,
        transaction_id: out.redemption.transactionId,
        rolled_back_at: out.redemption.rolledBackAt?.toISOString() ?? '',
        already_rolled_back: out.alreadyRolledBack,
      };
    },
  };
}
