// Input rules of every voucher operation. Each failure is a HallmarkError naming its
// `param`; numbers are checked for integrality here, whatever the transport did.
import { HallmarkError, invalidParam, missingParam } from '@hallmark/kit/errors';
import { VOUCHER_STATUSES, VOUCHER_TYPES, type VoucherStatus, type VoucherType } from './voucher.js';

export const CODE_PATTERN = /^[A-Za-z0-9]{4,32}$/;
export const DESCRIPTION_MAX = 500;
export const PAGE_LIMIT_DEFAULT = 20;
export const PAGE_LIMIT_MAX = 100;
/** Free-text identifiers (order, customer) are opaque but bounded. */
export const REF_MAX = 255;

const isSafeInt = (n: unknown): n is number => typeof n === 'number' && Number.isSafeInteger(n);

/** 1 to 100, at most two decimals (12.5, 33.33). */
function isPercentage(n: unknown): n is number {
  return (
    typeof n === 'number' &&
    Number.isFinite(n) &&
    n >= 1 &&
    n <= 100 &&
    Math.abs(n * 100 - Math.round(n * 100)) < 1e-9
  );
}

function positiveInt(param: string, n: unknown): number {
  if (!isSafeInt(n) || n < 1) throw invalidParam(param, `${param} must be a positive integer.`);
  return n;
}

/** RFC 3339 date-time with an explicit offset (`Z` or ±hh:mm), calendar-checked. */
const TIMESTAMP = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?(Z|[+-](\d{2}):(\d{2}))$/i;

export function parseTimestamp(s: string): Date | null {
  const m = TIMESTAMP.exec(s);
  if (!m) return null;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth || hour > 23 || minute > 59 || second > 59)
    return null;
  if (m[9] !== undefined && (Number(m[9]) > 23 || Number(m[10]) > 59)) return null;
  const ms = Date.parse(s);
  return Number.isNaN(ms) ? null : new Date(ms);
}

export function parseCurrency(param: string, s: string): string {
  if (!/^[A-Za-z]{3}$/.test(s)) throw invalidParam(param, `${param} must be a three-letter currency code.`);
  return s.toUpperCase();
}

export interface CreateInput {
  code?: string;
  type?: string;
  value?: number;
  maxUses?: number;
  expiresAt?: string;
  description?: string;
  currency?: string;
  maxUsesPerCustomer?: number;
}

export interface NewVoucher {
  code: string;
  type: VoucherType;
  value: number;
  maxUses: number | null;
  expiresAt: Date | null;
  description: string | null;
  currency: string | null;
  maxUsesPerCustomer: number | null;
}

export function parseCreate(input: CreateInput, now: Date): NewVoucher {
  if (!input.code) throw missingParam('code');
  if (!CODE_PATTERN.test(input.code)) throw invalidParam('code', 'code must be 4 to 32 letters or digits.');
  if (!input.type) throw missingParam('type');
  if (!(VOUCHER_TYPES as readonly string[]).includes(input.type)) {
    throw invalidParam('type', "type must be 'percentage' or 'fixed_amount'.");
  }
  const type = input.type as VoucherType;
  if (input.value === undefined) throw missingParam('value');
  // spec: value is a number, 1 to 100 for a percentage (12.5 included, to the hundredth, as
  // stored); cents for a fixed amount.
  if (type === 'percentage' && !isPercentage(input.value)) {
    throw invalidParam(
      'value',
      'A percentage value must be a number from 1 to 100 with at most two decimals.',
    );
  }
  const value = type === 'percentage' ? input.value : positiveInt('value', input.value);
  const maxUses = input.maxUses === undefined ? null : positiveInt('max_uses', input.maxUses);
  const maxUsesPerCustomer =
    input.maxUsesPerCustomer === undefined
      ? null
      : positiveInt('max_uses_per_customer', input.maxUsesPerCustomer);
  let expiresAt: Date | null = null;
  if (input.expiresAt !== undefined) {
    expiresAt = parseTimestamp(input.expiresAt);
    if (!expiresAt)
      throw invalidParam('expires_at', 'expires_at must be an ISO 8601 date-time with a time zone.');
    if (expiresAt.getTime() <= now.getTime())
      throw invalidParam('expires_at', 'expires_at must be in the future.');
  }
  if (input.description !== undefined && [...input.description].length > DESCRIPTION_MAX) {
    throw invalidParam('description', `description must be at most ${DESCRIPTION_MAX} characters.`);
  }
  const currency = input.currency === undefined ? null : parseCurrency('currency', input.currency);
  return {
    code: input.code,
    type,
    value,
    maxUses,
    expiresAt,
    description: input.description ?? null,
    currency,
    maxUsesPerCustomer,
  };
}

export interface UpdateInput {
  status?: string;
  maxUses?: number;
  clearMaxUses?: boolean;
}

/** What a PATCH asks for; `maxUses: null` means unlimited, undefined means unchanged. */
export interface VoucherPatch {
  status?: 'active' | 'inactive';
  maxUses?: number | null;
}

export function parseUpdate(input: UpdateInput): VoucherPatch {
  const patch: VoucherPatch = {};
  if (input.status !== undefined) {
    if (input.status !== 'active' && input.status !== 'inactive') {
      throw invalidParam('status', "status can be set to 'active' or 'inactive'.");
    }
    patch.status = input.status;
  }
  if (input.clearMaxUses && input.maxUses !== undefined) {
    throw invalidParam('max_uses', 'max_uses cannot be both set and cleared.');
  }
  if (input.clearMaxUses) patch.maxUses = null;
  else if (input.maxUses !== undefined) patch.maxUses = positiveInt('max_uses', input.maxUses);
  if (patch.status === undefined && patch.maxUses === undefined) {
    throw new HallmarkError('parameter_missing', {
      param: 'status',
      message: 'Provide status or max_uses to update.',
    });
  }
  return patch;
}

export interface RedeemInput {
  code?: string;
  orderId?: string;
  amount?: number;
  currency?: string;
  customerId?: string;
}

export interface Redemption {
  code: string;
  orderId: string;
  /** Order amount before discount, minor units; null when the request gave none. */
  amount: number | null;
  /** Upper-case; null when the request named none (the voucher's or the default applies). */
  currency: string | null;
  customerId: string | null;
}

function ref(param: string, s: string | undefined, required: true): string;
function ref(param: string, s: string | undefined, required: false): string | null;
function ref(param: string, s: string | undefined, required: boolean): string | null {
  if (s === undefined || s === '') {
    if (required) throw missingParam(param);
    return null;
  }
  if (s.length > REF_MAX || [...s].some((ch) => ch.charCodeAt(0) < 0x20)) {
    throw invalidParam(param, `${param} must be at most ${REF_MAX} printable characters.`);
  }
  return s;
}

export function parseRedeem(input: RedeemInput): Redemption {
  const code = ref('code', input.code, true);
  const orderId = ref('order_id', input.orderId, true);
  // Optional: the spec's redeem body is code and order_id (see rules.ts › computeDiscount).
  const amount = input.amount === undefined ? null : positiveInt('amount', input.amount);
  const currency = input.currency ? parseCurrency('currency', input.currency) : null;
  return { code, orderId, amount, currency, customerId: ref('customer_id', input.customerId, false) };
}

export interface ListQuery {
  page: number;
  limit: number;
  status: VoucherStatus | null;
}

export function parseList(input: { page?: number; limit?: number; status?: string }): ListQuery {
  const page = input.page || 1;
  if (!isSafeInt(page) || page < 1) throw invalidParam('page', 'page must be an integer of at least 1.');
  const limit = input.limit || PAGE_LIMIT_DEFAULT;
  if (!isSafeInt(limit) || limit < 1 || limit > PAGE_LIMIT_MAX) {
    throw invalidParam('limit', `limit must be an integer from 1 to ${PAGE_LIMIT_MAX}.`);
  }
  let status: VoucherStatus | null = null;
  if (input.status) {
    if (!(VOUCHER_STATUSES as readonly string[]).includes(input.status)) {
      throw invalidParam('status', `status must be one of ${VOUCHER_STATUSES.join(', ')}.`);
    }
    status = input.status as VoucherStatus;
  }
  return { page, limit, status };
}
