// Claim tokens: 32 bytes, base64url, derived from the gift's id with a key of the kit's key
// ring (HMAC-SHA256 under a subkey of HALLMARK_ENCRYPTION_KEYS), and stored only as their
// SHA-256. Deriving rather than drawing them lets a resend put the same link in the message
// without the token ever being stored: the database alone (hash only) cannot produce a
// working link, and the gift id alone (the sender sees it) cannot either without the key.
// After a key rotation (a new key prepended) the token of an older gift is found by trying
// each key against the stored hash.
import { createHmac } from 'node:crypto';
import { claimTokenHash } from './domain/gift.js';

export class ClaimTokens {
  private readonly subkeys: Buffer[];

  constructor(keysCsv: string) {
    this.subkeys = keysCsv
      .split(',')
      .map((k) => k.trim())
      .filter(Boolean)
      .map((k) => Buffer.from(k, /^[0-9a-f]{64}$/i.test(k) ? 'hex' : 'base64'))
      .map((key) => createHmac('sha256', key).update('hallmark:gift-claim-tokens:v1').digest());
    if (this.subkeys.length === 0) throw new Error('HALLMARK_ENCRYPTION_KEYS is empty');
  }

  /** The token of a new gift (newest key). */
  issue(giftId: string): string {
    return this.derive(this.subkeys[0]!, giftId);
  }

  /** The token of an existing gift whose stored hash is `hash`, or null (its key is gone). */
  recover(giftId: string, hash: string): string | null {
    for (const k of this.subkeys) {
      const token = this.derive(k, giftId);
      if (claimTokenHash(token) === hash) return token;
    }
    return null;
  }

  private derive(subkey: Buffer, giftId: string): string {
    return createHmac('sha256', subkey).update(giftId).digest('base64url');
  }
}
