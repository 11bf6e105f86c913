// API key verification on the hot path. A key whose checksum fails is refused with no
// lookup at all; a well-formed one is looked up by the SHA-256 of its secret, and the
// answer (positive or negative) is cached for a few seconds. Every gateway drops cached
// answers for a key the moment keys publishes key.updated / key.revoked / key.rotated.
import { HallmarkError, parseApiKey, sha256Hex, type AsyncClient } from '@hallmark/kit';
import type { KeyAuth, KeysServiceClient } from '@hallmark/proto/keys/v1/keys';

interface Entry {
  auth: KeyAuth | null;
  error: HallmarkError | null;
  until: number;
}

export class KeyVerifier {
  private readonly cache = new Map<string, Entry>();
  private readonly hashesByKey = new Map<string, Set<string>>();

  constructor(
    private readonly keys: AsyncClient<KeysServiceClient>,
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * The key behind `secret`. `hash` is its SHA-256 (sha256Hex), when the caller has it: the
   * one hash a request with a cached key costs. The checksum (another hash) is checked only
   * before a lookup; a secret with a cached answer was well formed when it was looked up.
   */
  async verify(secret: string, hash = sha256Hex(secret)): Promise<KeyAuth> {
    let entry = this.fresh(hash);
    if (!entry) {
      if (!parseApiKey(secret)) throw new HallmarkError('invalid_api_key');
      entry = await this.lookup(hash);
      if (this.ttlMs > 0) this.remember(hash, entry);
    }
    if (entry.error) throw entry.error;
    const auth = entry.auth!;
    // Expiry and rotation grace are re-checked on every request against our own clock,
    // so a cached answer never outlives them.
    const now = this.now();
    if (auth.expires_at && Date.parse(auth.expires_at) <= now) throw new HallmarkError('expired_api_key');
    if (auth.grace_until && Date.parse(auth.grace_until) <= now) throw new HallmarkError('invalid_api_key');
    return auth;
  }

  /** True when verifying `secret` would ask the keys service (well formed, no fresh answer). */
  needsLookup(secret: string, hash = sha256Hex(secret)): boolean {
    return !this.fresh(hash) && parseApiKey(secret) !== null;
  }

  private fresh(hash: string): Entry | undefined {
    const entry = this.cache.get(hash);
    return entry && entry.until > this.now() ? entry : undefined;
  }

  /** Drops every cached answer for a key (on its key.* events). */
  invalidate(keyId: string): void {
    for (const hash of this.hashesByKey.get(keyId) ?? []) this.cache.delete(hash);
    this.hashesByKey.delete(keyId);
  }

  clear(): void {
    this.cache.clear();
    this.hashesByKey.clear();
  }

  private async lookup(hash: string): Promise<Entry> {
    const until = this.now() + this.ttlMs;
    try {
      const res = await this.keys.verifyKey(
        { secret_hash: hash, ip_address: '' },
        { idempotent: true, deadlineMs: 2000 },
      );
      return { auth: res.key!, error: null, until };
    } catch (err) {
      if (err instanceof HallmarkError && err.type === 'authentication_error')
        return { auth: null, error: err, until };
      throw err; // transport trouble is not cached
    }
  }

  private remember(hash: string, entry: Entry): void {
    if (this.cache.size > 50_000) this.cache.clear(); // bound memory under a key-guessing flood
    this.cache.set(hash, entry);
    if (entry.auth) {
      const set = this.hashesByKey.get(entry.auth.key_id) ?? new Set<string>();
      set.add(hash);
      this.hashesByKey.set(entry.auth.key_id, set);
    }
  }
}
