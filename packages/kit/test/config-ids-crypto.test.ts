import { describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import {
  BlindIndex,
  ConfigError,
  Encryptor,
  constantTimeEqual,
  displayPrefix,
  generateApiKey,
  isId,
  loadConfig,
  newId,
  parseApiKey,
} from '../src/index.js';

describe('config', () => {
  const schema = z.object({
    PORT: z.coerce.number().int().min(1),
    URL: z.string().url(),
    MODE: z.enum(['a', 'b']),
  });

  it('reports every problem at once', () => {
    try {
      loadConfig(schema, { PORT: 'zero', URL: 'not a url', MODE: 'c' });
      throw new Error('expected ConfigError');
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      const problems = (err as ConfigError).problems;
      expect(problems).toHaveLength(3);
      expect(problems.join('\n')).toMatch(/PORT/);
      expect(problems.join('\n')).toMatch(/URL/);
      expect(problems.join('\n')).toMatch(/MODE/);
    }
  });

  it('returns typed values when valid', () => {
    expect(loadConfig(schema, { PORT: '80', URL: 'http://x', MODE: 'a' })).toEqual({
      PORT: 80,
      URL: 'http://x',
      MODE: 'a',
    });
  });
});

describe('ids', () => {
  it('are prefix + 24 base62 characters', () => {
    const id = newId('voucher');
    expect(id).toMatch(/^vouch_[0-9A-Za-z]{24}$/);
    expect(isId('voucher', id)).toBe(true);
    expect(isId('apiKey', id)).toBe(false);
    expect(isId('voucher', 'vouch_short')).toBe(false);
  });

  it('do not repeat', () => {
    const ids = new Set(Array.from({ length: 10_000 }, () => newId('event')));
    expect(ids.size).toBe(10_000);
  });
});

describe('encryption at rest', () => {
  it('round-trips and survives key rotation', () => {
    const oldKey = Encryptor.generateKey();
    const ciphertext = new Encryptor(oldKey).encrypt('shpat_secret');
    expect(ciphertext).not.toContain('shpat_secret');
    const rotated = new Encryptor(`${Encryptor.generateKey()},${oldKey}`);
    expect(rotated.decrypt(ciphertext)).toBe('shpat_secret');
    expect(rotated.decrypt(rotated.encrypt('x'))).toBe('x');
  });

  it('refuses tampered ciphertext', () => {
    const enc = new Encryptor(Encryptor.generateKey());
    const c = enc.encrypt('hello');
    const tampered = c.slice(0, -2) + (c.endsWith('A') ? 'BB' : 'AA');
    expect(() => enc.decrypt(tampered)).toThrow();
  });

  it('blind index: keyed, per purpose, never the value, and found again after a key rotation', () => {
    const oldKey = Encryptor.generateKey();
    const before = new BlindIndex(oldKey, 'recipient-email');
    const stored = before.of('a@b.test');
    expect(stored).toMatch(/^[0-9a-f]{64}$/);
    expect(stored).toBe(before.of('a@b.test'));
    expect(stored).not.toBe(new BlindIndex(Encryptor.generateKey(), 'recipient-email').of('a@b.test'));
    expect(stored).not.toBe(new BlindIndex(oldKey, 'other-purpose').of('a@b.test'));
    const rotated = new BlindIndex(`${Encryptor.generateKey()},${oldKey}`, 'recipient-email');
    expect(rotated.of('a@b.test')).not.toBe(stored);
    expect(rotated.candidates('a@b.test')).toContain(stored);
  });

  it('compares secrets exactly', () => {
    expect(constantTimeEqual('abc', 'abc')).toBe(true);
    expect(constantTimeEqual('abc', 'abd')).toBe(false);
    expect(constantTimeEqual('abc', 'abcd')).toBe(false);
  });
});

describe('API key secrets', () => {
  it('carry their type prefix and pass their own checksum', () => {
    for (const [type, prefix] of [
      ['production', 'pk_live_'],
      ['test', 'pk_test_'],
      ['restricted', 'pk_restricted_'],
    ] as const) {
      const key = generateApiKey(type);
      expect(key.startsWith(prefix)).toBe(true);
      expect(parseApiKey(key)).toEqual({ prefix });
    }
  });

  it('a mistyped key fails its checksum', () => {
    const key = generateApiKey('production');
    const last = key.at(-1)!;
    const typo = key.slice(0, -1) + (last === 'a' ? 'b' : 'a');
    expect(parseApiKey(typo)).toBeNull();
    const swapped = key.slice(0, 10) + key[11] + key[10] + key.slice(12);
    if (swapped !== key) expect(parseApiKey(swapped)).toBeNull();
    expect(parseApiKey('pk_live_short')).toBeNull();
    expect(parseApiKey('sk_live_' + key.slice(8))).toBeNull();
  });

  it('shows only a short prefix for display', () => {
    const key = generateApiKey('test');
    expect(displayPrefix(key)).toBe(key.slice(0, 12));
  });
});
