// ListIntegrations on the real PostgreSQL, through the install slice's handlers: an
// enterprise's shops (active and uninstalled), newest install first, a page at a time, each
// as GetIntegration answers it; another enterprise's shops never; no access token or webhook
// secret (nor their ciphertexts) in the answer. Installs go through the store as the
// callback writes them, so the secret columns are really filled.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  createLogger,
  Encryptor,
  HallmarkError,
  newId,
  openDatabase,
  type AsyncClient,
  type Pool,
} from '@hallmark/kit';
import { closeTestDatabase, TEST_DATABASE_SERVER, uniqueDatabaseName } from '@hallmark/kit/testing';
import type { Principal } from '@hallmark/proto/common/v1/common';
import type { KeysServiceClient } from '@hallmark/proto/keys/v1/keys';
import path from 'node:path';
import { AdminApi } from '../src/admin-api/client.js';
import { installHandlers } from '../src/install/rpc.js';
import { InstallService } from '../src/install/service.js';
import { InstallStore } from '../src/install/store.js';

const CALL = { requestId: 'req_test', deadlineMs: Infinity };
const database = uniqueDatabaseName('platform_list');
const SUFFIX = '.myshopify.com';
let pool: Pool;
let store: InstallStore;
let api: ReturnType<typeof installHandlers>;

const principal = (enterpriseId: string): Principal => ({
  enterprise_id: enterpriseId,
  livemode: true,
  actor_id: 'user_t',
  actor_type: 'user',
  scopes: [],
});
const tokenOf = (shop: string) => `shpat_token_of_${shop}`;
const secretOf = (shop: string) => Buffer.from(shop).toString('hex').padEnd(64, 'e').slice(0, 64);

/** Installs `shop` for `enterpriseId` as the callback does, at `installedAt`. */
async function install(enterpriseId: string, label: string, installedAt: string): Promise<string> {
  const shop = `${label}-${newId('enterprise').slice(4, 12).toLowerCase()}${SUFFIX}`;
  const credentials = {
    enterpriseId,
    apiKeyId: `key_${label}`,
    apiKey: 'k',
    webhookSecret: secretOf(shop),
    shop,
  };
  await store.install(
    {
      shop,
      principal: principal(enterpriseId),
      accessToken: tokenOf(shop),
      scopes: 'read_orders',
      apiKeyId: `key_${label}`,
      provisioned: true,
      webhookSecret: secretOf(shop),
    },
    { token: newId('enterprise'), credentials, ttlS: 600 },
  );
  await pool.query('UPDATE integrations SET installed_at = $2 WHERE shop = $1', [shop, installedAt]);
  return shop;
}

beforeAll(async () => {
  pool = await openDatabase({
    serverUrl: TEST_DATABASE_SERVER,
    database,
    migrationsDirs: [path.join(import.meta.dirname, '..', 'migrations')],
  });
  store = new InstallStore(pool, new Encryptor('ab'.repeat(32)));
  // Listing calls neither the platform's Admin API nor keys: both point nowhere.
  const admin = new AdminApi({
    adminUrlTemplate: 'https://{shop}/admin',
    apiKey: 'app-key',
    apiSecret: 'app-secret',
    apiVersion: '2024-10',
    timeoutMs: 1000,
  });
  const cfg = {
    publicUrl: 'https://hallmark.test',
    appUrl: 'https://app.test/setup',
    apiKey: 'app-key',
    apiSecret: 'app-secret',
    shopSuffix: SUFFIX,
    stateTtlS: 600,
    setupTokenTtlS: 600,
    callbackMaxAgeS: 300,
  };
  const keys = {} as AsyncClient<KeysServiceClient>;
  api = installHandlers(new InstallService(store, admin, keys, cfg, createLogger('platform-list', 'silent')));
}, 30_000);

afterAll(async () => {
  await closeTestDatabase(pool, database);
});

const list = (enterpriseId: string, page?: { page: number; limit: number }) =>
  api.listIntegrations({ principal: principal(enterpriseId), page }, CALL);

describe("an enterprise's shop integrations", () => {
  it('lists its own shops newest install first, each as GetIntegration answers it, and never another enterprise’s', async () => {
    const [mine, theirs] = [newId('enterprise'), newId('enterprise')];
    const oldest = await install(mine, 'oldest', '2026-01-01T00:00:00Z');
    const failing = await install(mine, 'failing', '2026-02-01T00:00:00Z');
    const gone = await install(mine, 'gone', '2026-03-01T00:00:00Z');
    const other = await install(theirs, 'other', '2026-02-15T00:00:00Z');
    const lastError = {
      code: 'validation_failed',
      message: 'no image',
      orderId: 'gid://o/1',
      orderName: '#1',
      at: '2026-02-02T00:00:00.000Z',
    };
    await pool.query('UPDATE integrations SET last_error = $2 WHERE shop = $1', [failing, lastError]);
    await pool.connect().then(async (c) => {
      await store.uninstall(c, gone);
      c.release();
    });

    const res = await list(mine);
    expect(res.integrations.map((i) => i.shop)).toEqual([gone, failing, oldest]);
    expect(res.pagination).toEqual({ page: 1, limit: 20, total: 3, total_pages: 1 });
    const one = (shop: string) => api.getIntegration({ principal: principal(mine), shop }, CALL);
    expect(res.integrations).toEqual([await one(gone), await one(failing), await one(oldest)]);
    expect(res.integrations.map((i) => [i.status, i.api_key_id, i.auto_fulfill])).toEqual([
      ['uninstalled', 'key_gone', true],
      ['active', 'key_failing', true],
      ['active', 'key_oldest', true],
    ]);
    expect(res.integrations[1]!.last_error).toMatchObject({
      code: 'validation_failed',
      order_id: 'gid://o/1',
    });

    expect((await list(theirs)).integrations.map((i) => i.shop)).toEqual([other]);
    expect(await list(newId('enterprise'))).toEqual({
      integrations: [],
      pagination: { page: 1, limit: 20, total: 0, total_pages: 0 },
    });
  });

  it('answers no access token or webhook secret, in clear or encrypted', async () => {
    const ent = newId('enterprise');
    const shop = await install(ent, 'secrets', '2026-04-01T00:00:00Z');
    const { rows } = await pool.query(
      'SELECT access_token_enc, webhook_secret_enc FROM integrations WHERE shop = $1',
      [shop],
    );
    expect(rows[0].access_token_enc).toEqual(expect.any(String));
    const text = JSON.stringify(await list(ent));
    for (const secret of [
      tokenOf(shop),
      secretOf(shop),
      rows[0].access_token_enc,
      rows[0].webhook_secret_enc,
    ])
      expect(text).not.toContain(secret);
    expect(text).not.toMatch(/"[a-z_]*(token|secret)[a-z_]*":/i);
  });

  it('pages with page and limit (at most 100); a bad one is parameter_invalid naming it', async () => {
    const ent = newId('enterprise');
    const shops = [];
    for (const month of ['01', '02', '03'])
      shops.push(await install(ent, `p${month}`, `2026-${month}-01T00:00:00Z`));
    const second = await list(ent, { page: 2, limit: 2 });
    expect(second.integrations.map((i) => i.shop)).toEqual([shops[0]]);
    expect(second.pagination).toEqual({ page: 2, limit: 2, total: 3, total_pages: 2 });
    for (const [page, param] of [
      [{ page: 1, limit: 101 }, 'limit'],
      [{ page: -1, limit: 10 }, 'page'],
    ] as const) {
      const err = await list(ent, page).catch((e: HallmarkError) => e);
      expect(err).toMatchObject({ code: 'parameter_invalid', param });
    }
  });
});
