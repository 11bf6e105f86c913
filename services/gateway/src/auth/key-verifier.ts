// API key verification on the hot path. A key whose checksum fails is refused with no
// lookup at all; a well-formed one is looked up by the SHA-256 of its secret, and the
// answer (positive or negative) is cached for a few seconds. Every gateway drops cached
// answers for a key the moment keys publishes key.updated / key.revoked / key.rotated.
// A key in use is renewed before its answer ends (the last REFRESH_AHEAD of the TTL): one
// background lookup replaces the answer, so no request of a busy key waits on the keys
// service; an answer is still never served past its own TTL, and one looked up while an
// invalidation came in is not kept.
import { HallmarkError, parseApiKey, sha256Hex, type AsyncClient } from '@hallmark/kit';
import type { KeyAuth, KeysServiceClient } from '@hallmark/proto/keys/v1/keys';

interface Entry {
  auth: KeyAuth | null;
  error: HallmarkError | null;
  until: number;
  /** The key's expiry and its secret's rotation grace end, parsed once (ms; Infinity: none). */
  expiresAt: number;
  graceUntil: number;
}

/** The share of the TTL, at its end, in which a request renews a valid key's answer. */
const REFRESH_AHEAD = 0.2;

const instant = (iso: string) => (iso ? Date.parse(iso) : Infinity);

export class KeyVerifier {
  private readonly cache = new Map<string, Entry>();
  private readonly hashesByKey = new Map<string, Set<string>>();
  /** Hashes with a renewal in flight (one at a time per key). */
  private readonly renewing = new Set<string>();
  /** Counts invalidations: a lookup that started before one is answered, not cached. */
  private generation = 0;

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
      const generation = this.generation;
      entry = await this.lookup(hash);
      if (this.ttlMs > 0 && generation === this.generation) this.remember(hash, entry);
    } else this.renewIfDue(hash, entry, this.now());
    if (entry.error) throw entry.error;
    // Expiry and rotation grace are re-checked on every request against our own clock,
    // so a cached answer never outlives them.
    const now = this.now();
    if (entry.expiresAt <= now) throw new HallmarkError('expired_api_key');
    if (entry.graceUntil <= now) throw new HallmarkError('invalid_api_key');
    return entry.auth!;
  }

  /**
   * The key behind `hash` when a fresh cached answer says it is valid now (`verify` would
   * answer it without a lookup and without an error); else undefined, and `verify` decides.
   * The request path's synchronous way through: no promise for a cached, valid key.
   */
  cachedValid(hash: string): KeyAuth | undefined {
    const now = this.now();
    const entry = this.cache.get(hash);
    if (!entry?.auth || entry.until <= now || entry.expiresAt <= now || entry.graceUntil <= now)
      return undefined;
    this.renewIfDue(hash, entry, now);
    return entry.auth;
  }

  /** Renews a valid key's answer in the background once it is in its last REFRESH_AHEAD. */
  private renewIfDue(hash: string, entry: Entry, now: number): void {
    if (!entry.auth || entry.until - now > this.ttlMs * REFRESH_AHEAD || this.renewing.has(hash)) return;
    this.renewing.add(hash);
    const generation = this.generation;
    this.lookup(hash)
      .then(
        (renewed) => {
          if (generation === this.generation) this.remember(hash, renewed);
        },
        // Transport trouble: the answer ends when it would have; the next request looks up.
        () => undefined,
      )
      .finally(() => this.renewing.delete(hash));
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
    this.generation++;
    for (const hash of this.hashesByKey.get(keyId) ?? []) this.cache.delete(hash);
    this.hashesByKey.delete(keyId);
  }

  clear(): void {
    this.generation++;
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
      const auth = res.key!;
      return {
        auth,
        error: null,
        until,
        expiresAt: instant(auth.expires_at),
        graceUntil: instant(auth.grace_until),
      };
    } catch (err) {
      if (err instanceof HallmarkError && err.type === 'authentication_error')
        return { auth: null, error: err, until, expiresAt: Infinity, graceUntil: Infinity };
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
