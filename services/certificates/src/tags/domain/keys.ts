// Per-tag keys, diversified from an enterprise's master key by NXP application note AN10922
// ("Symmetric key diversifications"), AES-128 method: the diversified key is the CMAC of
// 0x01 ‖ M under the master key, where M (1–31 bytes) is the diversification input and the
// padding is AN10922's own — 0x01 ‖ M is padded with 80 00… to 32 bytes (two blocks) and the
// last block is XORed with K2, or with K1 when 0x01 ‖ M is exactly 32 bytes. (RFC 4493 pads
// only to the next block, so for short inputs the two differ: that is why this is not a plain
// `aesCmac` call.)
//
// Hallmark's diversification input (docs/nfc-tags.md › The keys): M = UID (7 bytes) ‖ key
// number (1 byte) ‖ system identifier "Hallmark" (8 ASCII bytes), 16 bytes. The SDM meta read
// key (key 1) must be known before the UID is (it decrypts the UID), so it is one per master
// key: the same M with the UID field all zero (no NXP UID is zero: they start with 04).
import { createCipheriv } from 'node:crypto';
import { AesCmac } from 'aes-cmac';
import { KEY_BYTES, UID_BYTES } from './sun.js';

/** The system identifier in every diversification input. */
export const SYSTEM_IDENTIFIER = Buffer.from('Hallmark', 'ascii');

/** The NTAG 424 DNA application's five AES keys and what Hallmark makes of them. */
export const TAG_KEYS = [
  { number: 0, name: 'app_master_key', perTag: true },
  { number: 1, name: 'sdm_meta_read_key', perTag: false },
  { number: 2, name: 'sdm_file_read_key', perTag: true },
  { number: 3, name: 'key_3', perTag: true },
  { number: 4, name: 'key_4', perTag: true },
] as const;

export const META_READ_KEY = 1;
export const FILE_READ_KEY = 2;

/** AN10922 AES-128 diversification of `master` with input `m` (1 to 31 bytes). */
export async function diversifyAes128(master: Uint8Array, m: Uint8Array): Promise<Buffer> {
  if (master.length !== KEY_BYTES) throw new RangeError('AN10922 AES-128: the master key is 16 bytes');
  if (m.length < 1 || m.length > 31) throw new RangeError('AN10922: the input is 1 to 31 bytes');
  const d = Buffer.alloc(32);
  d[0] = 0x01;
  Buffer.from(m).copy(d, 1);
  const padded = m.length < 31;
  if (padded) d[1 + m.length] = 0x80;
  const { key1, key2 } = await new AesCmac(master).getSubKeys();
  const sub = padded ? key2 : key1;
  for (let i = 0; i < 16; i++) d[16 + i]! ^= sub[i]!;
  const c = createCipheriv('aes-128-cbc', master, Buffer.alloc(16));
  c.setAutoPadding(false);
  return Buffer.concat([c.update(d), c.final()]).subarray(16, 32);
}

/** Hallmark's diversification input of key `number` of the tag `uid` (null: no UID). */
export function diversificationInput(uid: Uint8Array | null, number: number): Buffer {
  if (uid && uid.length !== UID_BYTES) throw new RangeError('an NTAG 424 DNA UID is 7 bytes');
  return Buffer.concat([uid ?? Buffer.alloc(UID_BYTES), Buffer.from([number]), SYSTEM_IDENTIFIER]);
}

/** The SDM meta read key of every tag under `master` (decrypts PICCData). */
export const metaReadKey = (master: Uint8Array) =>
  diversifyAes128(master, diversificationInput(null, META_READ_KEY));

/** The SDM file read key of the tag `uid` (its SUN MAC). */
export const fileReadKey = (master: Uint8Array, uid: Uint8Array) =>
  diversifyAes128(master, diversificationInput(uid, FILE_READ_KEY));

/** All five keys of the tag `uid`, key 0 first: what its programming station writes. */
export async function tagKeys(master: Uint8Array, uid: Uint8Array): Promise<Buffer[]> {
  return Promise.all(
    TAG_KEYS.map((k) => diversifyAes128(master, diversificationInput(k.perTag ? uid : null, k.number))),
  );
}
