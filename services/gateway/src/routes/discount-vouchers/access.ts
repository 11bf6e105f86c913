// Who may call the voucher endpoints. Scopes per architecture.md: transactions.read (list,
// get, validate), transactions.create (create, redeem), transactions.update (update,
// rollback), transactions.delete. Rate groups per the spec's voucher rows.
import type { Access } from '../../endpoint/define.js';

export const TAGS = ['Discount vouchers'];
export const READ: Access = { auth: 'either', scope: 'transactions.read', rateGroup: 'voucher_read' };
export const CREATE: Access = { auth: 'either', scope: 'transactions.create', rateGroup: 'voucher_write' };
export const UPDATE: Access = { auth: 'either', scope: 'transactions.update', rateGroup: 'voucher_write' };
export const DELETE: Access = { auth: 'either', scope: 'transactions.delete', rateGroup: 'voucher_write' };
export const REDEEM: Access = { auth: 'either', scope: 'transactions.create', rateGroup: 'voucher_redeem' };
export const VALIDATE: Access = {
  auth: 'either',
  scope: ['transactions.read', 'transactions.create'],
  rateGroup: 'voucher_redeem',
};
