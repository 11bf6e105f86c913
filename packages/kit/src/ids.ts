// Prefixed, typed ids: prefix + 24 random base62 characters (architecture.md › Ids).
// A branded type per id keeps one kind of id from being passed for another, and the
// prefix makes every id self-describing in logs.
import { randomInt } from 'node:crypto';

export const ID_PREFIXES = {
  voucher: 'vouch_',
  apiKey: 'apikey_',
  webhook: 'webhook_',
  enterpriseWebhook: 'wh_',
  enterprise: 'ent_',
  certificateVoucher: 'v_',
  job: 'job_',
  certificate: 'cert_',
  certificateBatch: 'batch_',
  gift: 'gift_',
  ownershipLink: 'ownlink_',
  event: 'evt_',
  request: 'req_',
  user: 'user_',
  delivery: 'dlv_',
  listenSession: 'lsn_',
  template: 'tmpl_',
  transaction: 'txn_',
  statusList: 'sl_',
  nfcTag: 'tag_',
  nfcTagKey: 'tagkey_',
} as const;

export type IdKind = keyof typeof ID_PREFIXES;
export type Id<K extends IdKind> = string & { readonly __id: K };
/** The discount voucher's id; other kinds use `Id<kind>` where a brand helps. */
export type VoucherId = Id<'voucher'>;

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
export const ID_BODY_LENGTH = 24;

export function randomBase62(length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += ALPHABET[randomInt(62)];
  return out;
}

export function newId<K extends IdKind>(kind: K): Id<K> {
  return (ID_PREFIXES[kind] + randomBase62(ID_BODY_LENGTH)) as Id<K>;
}

const BODY = new RegExp(`^[0-9A-Za-z]{${ID_BODY_LENGTH}}$`);

/** True when `value` is a well-formed id of `kind` (cheap check before any lookup). */
export function isId<K extends IdKind>(kind: K, value: unknown): value is Id<K> {
  if (typeof value !== 'string') return false;
  const prefix = ID_PREFIXES[kind];
  return value.startsWith(prefix) && BODY.test(value.slice(prefix.length));
}
