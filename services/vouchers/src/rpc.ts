// gRPC handlers: proto <-> service calls, nothing else.
import { scopeOf, type AsyncHandlers } from '@hallmark/kit';
import type { RedemptionResult, Voucher, VouchersServiceServer } from '@hallmark/proto/vouchers/v1/vouchers';
import type { RedemptionResult as DomainResult } from './domain/redemption.js';
import { toView } from './domain/voucher.js';
import type { VouchersService } from './service.js';
import type { VoucherRead } from './store.js';

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

/** A redemption result on the wire: an amount not known (null) is an unset optional field. */
function resultToProto(r: DomainResult): RedemptionResult {
  return {
    ...r,
    discount_applied: r.discount_applied ?? undefined,
    original_amount: r.original_amount ?? undefined,
    final_amount: r.final_amount ?? undefined,
  };
}

export function createVouchersHandlers(service: VouchersService): AsyncHandlers<VouchersServiceServer> {
  return {
    async createVoucher(req) {
      const created = await service.create(scopeOf(req.principal), {
        code: req.code,
        type: req.type,
        value: req.value,
        maxUses: req.max_uses,
        expiresAt: req.expires_at,
        description: req.description,
        currency: req.currency,
        maxUsesPerCustomer: req.max_uses_per_customer,
      });
      return toProto(created);
    },

    async listVouchers(req) {
      const {
        vouchers,
        total,
        query: q,
      } = await service.list(scopeOf(req.principal), {
        page: req.page?.page,
        limit: req.page?.limit,
        status: req.status,
      });
      return {
        vouchers: vouchers.map(toProto),
        pagination: { page: q.page, limit: q.limit, total, total_pages: Math.ceil(total / q.limit) },
      };
    },

    async getVoucher(req) {
      return toProto(await service.get(scopeOf(req.principal), req.voucher_id));
    },

    async updateVoucher(req) {
      const scope = scopeOf(req.principal);
      const patch = { status: req.status, maxUses: req.max_uses, clearMaxUses: req.clear_max_uses };
      return toProto(await service.update(scope, req.voucher_id, patch));
    },

    async deleteVoucher(req) {
      const gone = await service.delete(scopeOf(req.principal), req.voucher_id);
      return { id: gone.voucher.id, deleted: true };
    },

    async redeemVoucher(req) {
      return resultToProto(
        await service.redeem(scopeOf(req.principal), {
          code: req.code,
          orderId: req.order_id,
          amount: req.amount,
          currency: req.currency,
          customerId: req.customer_id,
        }),
      );
    },

    async validateVoucher(req) {
      return resultToProto(
        await service.validate(scopeOf(req.principal), {
          code: req.code,
          orderId: req.order_id,
          amount: req.amount,
          currency: req.currency,
          customerId: req.customer_id,
        }),
      );
    },

    async rollbackRedemption(req) {
      const out = await service.rollback(scopeOf(req.principal), req.voucher_id, req.order_id);
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
