// No secret at rest or in logs: after keys of every type are issued, used through every
// credential channel (the discouraged ?api_key= included, on answered, refused, unknown and
// invalid requests), rotated and revoked, no full secret and no session token is found in
// any row of any table of the stack's databases, in any service's log file, or in the NATS
// store the events went through. Services log at `info` so there is something to scan.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { eventually } from '@hallmark/kit/testing';
import { newId, sha256Hex } from '@hallmark/kit';
import path from 'node:path';
import { startTestStack, type TestStack } from '../src/index.js';
import {
  callWithKey,
  createEnterpriseKey,
  createKey,
  mistype,
  secondsFromNow,
  type Channel,
} from '../src/keys.js';
import { scanDatabase, scanFiles, stackDatabases, type DbScan } from '../src/scan.js';

let stack: TestStack;
/** label → secret value: every full key issued, and every session token used. */
const needles: Record<string, string> = {};
/** Request ids of requests that carried a key in the query string (to find their log lines). */
const queryRequestIds: string[] = [];
/** Ids of keys created (they travel in key.* events, so the NATS store must hold them). */
const keyIds: string[] = [];

/** Plain values to look for, labelled by themselves (they are not secret). */
const ids = (values: string[]) => Object.fromEntries(values.map((v) => [v, v]));

beforeAll(async () => {
  stack = await startTestStack({ logLevel: 'info' });
  const ent = newId('enterprise');
  const ownerToken = await stack.token({ ent, role: 'owner' });
  needles['owner session token'] = ownerToken;
  needles['owner session token signature'] = ownerToken.split('.')[2]!;

  const production = await createKey(stack, ownerToken, { name: 'prod' });
  const test = await createKey(stack, ownerToken, { name: 'test', type: 'test' });
  const restricted = await createKey(stack, ownerToken, {
    name: 'restricted',
    type: 'restricted',
    rateLimit: 600,
    expiresAt: secondsFromNow(3600),
  });
  const enterprise = await createEnterpriseKey(stack, ownerToken, { scopes: ['bulk:mint', 'pos:voucher'] });
  keyIds.push(production.id, test.id, restricted.id, enterprise.id);
  Object.assign(needles, {
    'production key': production.key,
    'test key': test.key,
    'restricted key': restricted.key,
    'enterprise key': enterprise.key,
    'mistyped production key': mistype(production.key),
  });

  // Use every key through every channel, on requests that succeed and that fail.
  const uses: [string, string, unknown][] = [
    ['GET', '/api/v1/api-keys', undefined], // 200 (admin keys) or 403 (enterprise key)
    ['GET', '/api/v1/api-keys/apikey_000000000000000000000000', undefined], // 404 from the service
    ['POST', '/api/v1/api-keys', { name: 'x', type: 'nope' }], // 400 validation
    ['PUT', '/api/v1/api-keys', undefined], // 405
    ['GET', '/api/v1/nothing-here', undefined], // unknown route
    ['GET', '/api/v1/vouchers', undefined], // another service
  ];
  for (const key of [production.key, test.key, restricted.key, enterprise.key, mistype(production.key)]) {
    for (const via of ['bearer', 'header', 'query'] as Channel[]) {
      for (const [method, urlPath, body] of uses) {
        const res = await callWithKey(stack, method, urlPath, key, via, { body });
        expect(res.status).toBeLessThan(500);
        if (via === 'query') queryRequestIds.push(res.headers.get('x-request-id')!);
      }
    }
  }

  // Rotate (with and without grace), use old and new, revoke, use the revoked one.
  const rotated = await stack.call('POST', `/api/v1/api-keys/${production.id}/rotate`, {
    auth: ownerToken,
    body: { gracePeriodSeconds: 60 },
  });
  needles['rotated production key'] = rotated.body.key;
  const rotatedAgain = await stack.call('POST', `/api/v1/api-keys/${production.id}/rotate`, {
    auth: production.key,
    body: { gracePeriodSeconds: 0 },
  });
  needles['twice-rotated production key'] = rotatedAgain.body.key;
  for (const key of [production.key, rotated.body.key, rotatedAgain.body.key])
    for (const via of ['bearer', 'query'] as Channel[])
      await callWithKey(stack, 'GET', '/api/v1/api-keys', key, via);
  await stack.call('DELETE', `/api/v1/api-keys/${test.id}`, { auth: ownerToken });
  await callWithKey(stack, 'GET', '/api/v1/api-keys', test.key, 'query');

  // A member session shares in the traffic too.
  const member = await stack.token({ ent, role: 'member' });
  needles['member session token'] = member;
  await stack.call('GET', '/api/v1/api-keys?api_key=not-a-key', { auth: member });

  // Usage ships in ~1 s batches and events leave through the outbox: let both land (the
  // tests below say what is missing if they do not).
  await eventually(
    async () => {
      const seen = new Set(scanFiles(path.join(stack.env.HALLMARK_DATA_DIR!, 'nats'), ids(keyIds)).findings);
      expect(seen.size).toBeGreaterThan(0);
      const { tables } = await scanDatabase(stack.postgres.url, `${stack.prefix}_keys`, {});
      expect(tables[`${stack.prefix}_keys.public.key_usage_hourly`]).toBeGreaterThan(0);
    },
    { timeoutMs: 4000, intervalMs: 250 },
  ).catch(() => undefined);
}, 120_000);

afterAll(async () => {
  await stack?.close();
}, 60_000);

describe('no secret at rest', () => {
  let scans: DbScan[];

  beforeAll(async () => {
    const dbs = await stackDatabases(stack.postgres.url, stack.prefix);
    scans = await Promise.all(dbs.map((db) => scanDatabase(stack.postgres.url, db, needles)));
  });

  it('scans every table of every database of the stack, the keys database and its usage rows included', () => {
    const tables = Object.assign({}, ...scans.map((s) => s.tables)) as Record<string, number>;
    const keysDb = `${stack.prefix}_keys.public`;
    expect(tables[`${keysDb}.api_keys`]).toBeGreaterThanOrEqual(4);
    expect(tables[`${keysDb}.api_key_secrets`]).toBeGreaterThanOrEqual(4);
    expect(tables[`${keysDb}.audit_logs`]).toBeGreaterThan(0);
    // The usage the keys made has landed (shipped in ~1 s batches), so it is scanned too.
    expect(tables[`${keysDb}.key_usage_hourly`]).toBeGreaterThan(0);
    expect(tables[`${keysDb}.outbox`]).toBeGreaterThan(0);
  });

  it('finds what is meant to be stored: the SHA-256 of each secret, never the secret', async () => {
    // The scan would see a secret if it were there: it sees each secret's hash.
    const hashes = Object.fromEntries(
      ['twice-rotated production key', 'restricted key', 'enterprise key', 'test key'].map((l) => [
        `sha256(${l})`,
        sha256Hex(needles[l]!),
      ]),
    );
    const { findings } = await scanDatabase(stack.postgres.url, `${stack.prefix}_keys`, hashes);
    expect(findings.map((f) => f.needle).sort()).toEqual(Object.keys(hashes).sort());
  });

  it('no full secret and no session token in any column of any table', () => {
    expect(scans.flatMap((s) => s.findings)).toEqual([]);
  });
});

describe('no secret in logs', () => {
  it('every service and the gateway wrote info logs, with a line for each request that carried ?api_key=', () => {
    const logs = path.join(stack.env.HALLMARK_DATA_DIR!, 'logs');
    const { files } = scanFiles(logs, {});
    const names = files.map((f) => path.basename(f));
    for (const n of ['gateway.log', 'keys.log', 'vouchers.log']) expect(names).toContain(n);
    const found = new Set(scanFiles(logs, ids(queryRequestIds)).findings.map((f) => f.needle));
    expect(queryRequestIds.filter((id) => !found.has(id))).toEqual([]);
  });

  it('no full secret and no session token in any log file, nor in the NATS store the events went through', () => {
    const dataDir = stack.env.HALLMARK_DATA_DIR!;
    const logs = scanFiles(path.join(dataDir, 'logs'), needles);
    const nats = scanFiles(path.join(dataDir, 'nats'), needles);
    expect(logs.files.length).toBeGreaterThan(0);
    // The NATS scan reads the stored events: it finds the key ids they carry.
    const seen = new Set(scanFiles(path.join(dataDir, 'nats'), ids(keyIds)).findings.map((f) => f.needle));
    expect(keyIds.filter((id) => !seen.has(id))).toEqual([]);
    expect([...logs.findings, ...nats.findings]).toEqual([]);
  });
});
