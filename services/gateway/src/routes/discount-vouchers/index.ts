// /api/v1/vouchers: discount vouchers, each endpoint declared once (endpoint/define.ts).
import type { FastifyInstance } from 'fastify';
import { registerEndpoints } from '../../endpoint/define.js';
import type { RouteDeps } from '../shared.js';
import { redeemVoucher, rollbackRedemption, validateVoucher } from './redemption.js';
import { createVoucher, deleteVoucher, getVoucher, listVouchers, updateVoucher } from './vouchers.js';

export default async function discountVouchers(app: FastifyInstance, deps: RouteDeps) {
  registerEndpoints(app, deps, [
    listVouchers,
    createVoucher,
    getVoucher,
    updateVoucher,
    deleteVoucher,
    redeemVoucher,
    validateVoucher,
    rollbackRedemption,
  ]);
}
