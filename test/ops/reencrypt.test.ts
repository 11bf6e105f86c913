// Key rotation (docs/runbooks/rotate-encryption-keys.md): `pnpm hallmark reencrypt` moves
// every value at rest to the newest HALLMARK_ENCRYPTION_KEYS key across service databases,
// idempotently and resumably, so the old key can be removed without losing a secret.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Encryptor, openDatabase, type Pool } from '@hallmark/kit';
import { reencryptColumn, runReencrypt } from '@hallmark/kit/reencrypt';
import { dropDatabase, TEST_DATABASE_SERVER } from '@hallmark/kit/testing';
import path from 'node:path';
import { WebhooksStore } from '../../services/notify/src/webhooks/store.js';

const OLD = Encryptor.generateKey();
const NEW = Encryptor.generateKey();
const REPO = path.resolve(import.meta.dirname, '..', '..');
const prefix = `reenc${Date.now().toString(36)}${Math.floor(Math.random() * 1e6)}`;
const silent = () => undefined;
let notify: Pool;
let certificates: Pool;

beforeAll(async () => {
  // notify with its real schema and store; certificates with a table shaped like its own
  // (contacts under a composite key, nullable, beside plain text).
  notify = await openDatabase({
    serverUrl: TEST_DATABASE_SERVER,
    database: `${prefix}_notify`,
    migrationsDirs: [path.join(REPO, 'services', 'notify', 'migrations')],
  });
  certificates = await openDatabase({ serverUrl: TEST_DATABASE_SERVER, database: `${prefix}_certificates` });
  await certificates.query(
    `CREATE TABLE contacts (job text, n int, email_enc text, name_enc text, note text, PRIMARY KEY (job, n))`,
  );
});

afterAll(async () => {
  await notify?.end();
  await certificates?.end();
  await dropDatabase(`${prefix}_notify`);
  await dropDatabase(`${prefix}_certificates`);
});

const scope = { enterpriseId: 'ent_reencrypt', livemode: true };

describe('pnpm hallmark reencrypt', () => {
  it('moves every encrypted value of every service database to the newest key, so the old key can go', async () => {
    const old = new Encryptor(OLD);
    const endpoint = await new WebhooksStore(notify, old).createEndpoint(scope, {
      url: 'https://example.com/hook',
      events: ['certificate.minted'],
      secret: 'whsec_rotate_me',
    });
    for (let n = 0; n < 7; n++)
      await certificates.query('INSERT INTO contacts VALUES ($1, $2, $3, $4, $5)', [
        'job_1',
        n,
        old.encrypt(`buyer${n}@example.com`),
        n % 2 ? null : old.encrypt(`Buyer ${n}`),
        'v1.not.an.envelope', // plain text that only looks like one
      ]);
    const run = { serverUrl: TEST_DATABASE_SERVER, prefix, keys: `${NEW},${OLD}`, log: silent };
    const services = ['keys', 'notify', 'certificates'];

    const before = await runReencrypt({ ...run, services, check: true });
    expect(before.notify!.map((r) => [r.table, r.column, r.stale])).toEqual([
      ['webhook_endpoints', 'secret_enc', 1],
    ]);
    expect(before.certificates!.map((r) => [r.column, r.stale])).toEqual([
      ['email_enc', 7],
      ['name_enc', 4],
    ]);
    expect(before.keys).toBeUndefined(); // no database: skipped

    const done = await runReencrypt({ ...run, services, batchSize: 3 });
    expect(
      Object.values(done)
        .flat()
        .map((r) => r.reencrypted),
    ).toEqual([1, 7, 4]);
    const after = await runReencrypt({ ...run, services, check: true });
    expect(
      Object.values(after)
        .flat()
        .every((r) => r.stale === 0 && r.unreadable === 0),
    ).toBe(true);

    // The old key removed: every value still decrypts, to what it was.
    const onlyNew = new Encryptor(NEW);
    const { rows: hooks } = await notify.query('SELECT secret_enc FROM webhook_endpoints WHERE id = $1', [
      endpoint.id,
    ]);
    expect(onlyNew.decrypt(hooks[0].secret_enc)).toBe('whsec_rotate_me');
    const { rows } = await certificates.query('SELECT n, email_enc, name_enc, note FROM contacts ORDER BY n');
    for (const r of rows) {
      expect(onlyNew.decrypt(r.email_enc)).toBe(`buyer${r.n}@example.com`);
      expect(r.name_enc === null ? null : onlyNew.decrypt(r.name_enc)).toBe(r.n % 2 ? null : `Buyer ${r.n}`);
      expect(r.note).toBe('v1.not.an.envelope');
    }

    // A second run finds nothing to do.
    const again = await runReencrypt({ ...run, services });
    expect(
      Object.values(again)
        .flat()
        .map((r) => r.reencrypted),
    ).toEqual([0, 0, 0]);
  });

  it('resumes after being stopped half way, rewriting each value once', async () => {
    const [k1, k2] = [Encryptor.generateKey(), Encryptor.generateKey()];
    await certificates.query('CREATE TABLE resume (id int PRIMARY KEY, secret text)');
    const first = new Encryptor(k1);
    for (let id = 0; id < 10; id++)
      await certificates.query('INSERT INTO resume VALUES ($1, $2)', [id, first.encrypt(`s${id}`)]);
    const enc = new Encryptor(`${k2},${k1}`);
    const col = { table: 'resume', column: 'secret' };
    let batches = 0;
    await expect(
      reencryptColumn(certificates, enc, col, {
        batchSize: 4,
        onProgress: () => {
          if (++batches === 1) throw new Error('operator pressed Ctrl-C');
        },
      }),
    ).rejects.toThrow('Ctrl-C');
    const half = await reencryptColumn(certificates, enc, col, { check: true });
    expect([half.current, half.stale]).toEqual([4, 6]); // the first batch committed

    const rest = await reencryptColumn(certificates, enc, col, { batchSize: 4 });
    expect([rest.reencrypted, rest.current]).toEqual([6, 10]);
    const { rows } = await certificates.query('SELECT id, secret FROM resume ORDER BY id');
    expect(rows.map((r) => new Encryptor(k2).decrypt(r.secret))).toEqual(rows.map((r) => `s${r.id}`));
  });

  it('leaves a value no configured key can read untouched and reports it', async () => {
    const lost = new Encryptor(Encryptor.generateKey());
    await certificates.query('CREATE TABLE lost (id int PRIMARY KEY, secret text)');
    await certificates.query('INSERT INTO lost VALUES (1, $1)', [lost.encrypt('gone')]);
    const before = (await certificates.query('SELECT secret FROM lost')).rows[0].secret;
    const report = await reencryptColumn(certificates, new Encryptor(`${NEW},${OLD}`), {
      table: 'lost',
      column: 'secret',
    });
    expect([report.reencrypted, report.unreadable]).toEqual([0, 1]);
    expect((await certificates.query('SELECT secret FROM lost')).rows[0].secret).toBe(before);
  });
});
