// Custodial wallets on PostgreSQL: one per owner, idempotent, scoped to an enterprise, the
// private key encrypted at rest with the configured keys (and readable after a key rotation).
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Encryptor, HallmarkError, newId, openDatabase, type Pool } from '@hallmark/kit';
import { closeTestDatabase, TEST_DATABASE_SERVER, uniqueDatabaseName } from '@hallmark/kit/testing';
import { Wallet } from 'ethers';
import { parseWalletOwner, WalletStore } from '../src/wallets/store.js';

const MIGRATIONS_DIR = path.join(import.meta.dirname, '..', 'migrations');
const KEY = Encryptor.generateKey();

let database: string;
let pool: Pool;
let wallets: WalletStore;

beforeAll(async () => {
  database = uniqueDatabaseName('certificates');
  pool = await openDatabase({
    serverUrl: TEST_DATABASE_SERVER,
    database,
    migrationsDirs: [MIGRATIONS_DIR],
    max: 4,
  });
  wallets = new WalletStore(pool, KEY);
}, 30_000);

afterAll(async () => {
  await closeTestDatabase(pool, database);
});

describe('custodial wallets', () => {
  it('one wallet per owner, created once (also under concurrency), key encrypted at rest', async () => {
    const ent = newId('enterprise');
    const results = await Promise.all([1, 2, 3].map(() => wallets.ensure(ent, 'enterprise', ent)));
    expect(new Set(results.map((r) => r.wallet.address)).size).toBe(1);
    expect(results.filter((r) => r.created)).toHaveLength(1);
    const address = results[0]!.wallet.address;

    const { rows } = await pool.query<{ encrypted_key: string }>(
      'SELECT encrypted_key FROM wallets WHERE address = $1',
      [address],
    );
    const signer = await wallets.signer(address);
    expect(signer.address).toBe(address);
    expect(rows[0]!.encrypted_key).toMatch(/^v1\./);
    expect(rows[0]!.encrypted_key).not.toContain(signer.privateKey.slice(2));
    // A rotated key list (new key first) still decrypts; a store without the key cannot.
    expect((await new WalletStore(pool, `${Encryptor.generateKey()},${KEY}`).signer(address)).address).toBe(
      address,
    );
    await expect(new WalletStore(pool, Encryptor.generateKey()).signer(address)).rejects.toThrow(
      /no longer configured/,
    );
    expect(new Wallet(signer.privateKey).address).toBe(address);
  });

  it('a user wallet belongs to one enterprise; owner references are validated', async () => {
    const ent = newId('enterprise');
    const user = newId('user');
    const mine = await wallets.ensure(ent, 'user', user);
    expect(mine).toMatchObject({
      created: true,
      wallet: { ownerKind: 'user', ownerId: user, enterpriseId: ent },
    });
    await expect(wallets.ensure(newId('enterprise'), 'user', user)).rejects.toMatchObject({
      code: 'resource_not_found',
    });
    expect(parseWalletOwner(ent, { kind: 'enterprise', id: '' }, 'owner')).toEqual({
      kind: 'enterprise',
      id: ent,
    });
    const errs = [
      () => parseWalletOwner(ent, { kind: 'enterprise', id: newId('enterprise') }, 'owner'),
      () => parseWalletOwner(ent, { kind: 'user', id: '' }, 'owner'),
      () => parseWalletOwner(ent, { kind: 'user', id: 'nope' }, 'owner'),
      () => parseWalletOwner(ent, { kind: 'robot', id: 'x' }, 'owner'),
      () => parseWalletOwner(ent, undefined, 'owner'),
    ].map((f) => {
      try {
        f();
      } catch (err) {
        return [(err as HallmarkError).code, (err as HallmarkError).param];
      }
      return null;
    });
    expect(errs).toEqual([
      ['resource_not_found', undefined],
      ['parameter_missing', 'owner.id'],
      ['parameter_invalid', 'owner.id'],
      ['parameter_invalid', 'owner.kind'],
      ['parameter_missing', 'owner.kind'],
    ]);
  });
});
