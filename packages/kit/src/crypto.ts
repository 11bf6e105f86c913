// Secrets at rest and in transit: AES-256-GCM with key rotation (newest key encrypts,
// every key decrypts), SHA-256 for API key hashes, HMAC for signatures, and
// constant-time comparison wherever a secret is checked.
import {
  createCipheriv,
  createDecipheriv,
  createHmac,
  hash,
  randomBytes,
  timingSafeEqual,
} from 'node:crypto';

/** SHA-256 in hex. One-shot `hash` (no Hash object): half the cost; every keyed request pays it. */
export function sha256Hex(value: string | Buffer): string {
  return hash('sha256', value, 'hex');
}

export function hmacSha256(
  key: string | Buffer,
  data: string | Buffer,
  encoding: 'hex' | 'base64' = 'hex',
): string {
  return createHmac('sha256', key).update(data).digest(encoding);
}

/** Compares two strings in time independent of where they differ. */
export function constantTimeEqual(a: string, b: string): boolean {
  const ab = Buffer.from(a);
  const bb = Buffer.from(b);
  // Compare against itself on length mismatch so timing does not reveal the length.
  if (ab.length !== bb.length) {
    timingSafeEqual(ab, ab);
    return false;
  }
  return timingSafeEqual(ab, bb);
}

export function randomHex(bytes: number): string {
  return randomBytes(bytes).toString('hex');
}

/**
 * The 32-byte keys of a HALLMARK_ENCRYPTION_KEYS list (comma-separated, hex or base64,
 * newest first). Throws when the list is empty or a key is not 32 bytes.
 */
export function encryptionKeysOf(keysCsv: string): Buffer[] {
  const keys = keysCsv
    .split(',')
    .map((k) => k.trim())
    .filter(Boolean)
    .map((k) => Buffer.from(k, /^[0-9a-f]{64}$/i.test(k) ? 'hex' : 'base64'));
  if (keys.length === 0) throw new Error('HALLMARK_ENCRYPTION_KEYS is empty');
  for (const key of keys) if (key.length !== 32) throw new Error('each encryption key must be 32 bytes');
  return keys;
}

/**
 * A keyed blind index: lets an encrypted column be found by equality without decrypting.
 * The index of a value is HMAC-SHA256 (hex) under a subkey derived from each encryption key
 * for one `purpose` (HMAC of `hallmark:blind-index:<purpose>:v1`), so indexes of different
 * purposes never compare equal and the key itself never signs data directly. New rows store
 * `of(value)` (newest key); a look-up matches any of `candidates(value)`, so rows indexed
 * before a key rotation (a new key prepended) are still found. Callers normalise the value
 * first (e.g. an e-mail trimmed and lower-cased): the index is exact.
 */
export class BlindIndex {
  private readonly subkeys: Buffer[];

  constructor(keysCsv: string, purpose: string) {
    if (!/^[a-z0-9-]+$/.test(purpose)) throw new Error(`blind index purpose must be kebab-case: ${purpose}`);
    this.subkeys = encryptionKeysOf(keysCsv).map((key) =>
      createHmac('sha256', key).update(`hallmark:blind-index:${purpose}:v1`).digest(),
    );
  }

  /**
   * Names the newest key's subkey (a short hash of it): a store that records which key its
   * indexes were last made under knows, after a rotation, that they must be made again.
   */
  get currentKeyId(): string {
    return sha256Hex(this.subkeys[0]!).slice(0, 8);
  }

  /** The index under the newest key: what a new row stores. */
  of(value: string): string {
    return hmacSha256(this.subkeys[0]!, value);
  }

  /** The index under every configured key, newest first: what a look-up matches. */
  candidates(value: string): string[] {
    return this.subkeys.map((k) => hmacSha256(k, value));
  }
}

/**
 * Envelope: `v1.<keyIndexHash>.<iv>.<tag>.<ciphertext>` (base64url). The key is named by
 * a short hash of itself, so rotation (prepending a new key) keeps old ciphertexts readable.
 */
export class Encryptor {
  private readonly keys: { id: string; key: Buffer }[];

  constructor(keysCsv: string) {
    this.keys = encryptionKeysOf(keysCsv).map((key) => ({ id: sha256Hex(key).slice(0, 8), key }));
  }

  /** Id of the newest key: the one every new ciphertext is written with. */
  get currentKeyId(): string {
    return this.keys[0]!.id;
  }

  /** The key id an envelope names (undefined when it is not one of ours). */
  static keyIdOf(envelope: string): string | undefined {
    const [version, id] = envelope.split('.');
    return version === 'v1' && id && /^[0-9a-f]{8}$/.test(id) ? id : undefined;
  }

  /**
   * The same plaintext under the newest key, or null when the envelope already uses it.
   * Throws as decrypt does (unknown key, tampered ciphertext).
   */
  reencrypt(envelope: string): string | null {
    if (Encryptor.keyIdOf(envelope) === this.currentKeyId) return null;
    return this.encrypt(this.decrypt(envelope));
  }

  static generateKey(): string {
    return randomBytes(32).toString('hex');
  }

  encrypt(plaintext: string): string {
    const { id, key } = this.keys[0]!;
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    const data = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    const tag = cipher.getAuthTag();
    return ['v1', id, iv.toString('base64url'), tag.toString('base64url'), data.toString('base64url')].join(
      '.',
    );
  }

  decrypt(envelope: string): string {
    const [version, id, iv, tag, data] = envelope.split('.');
    if (version !== 'v1' || !id || !iv || !tag || data === undefined)
      throw new Error('unrecognised ciphertext');
    const entry = this.keys.find((k) => k.id === id);
    if (!entry) throw new Error('ciphertext was encrypted with a key that is no longer configured');
    const decipher = createDecipheriv('aes-256-gcm', entry.key, Buffer.from(iv, 'base64url'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString(
      'utf8',
    );
  }
}
