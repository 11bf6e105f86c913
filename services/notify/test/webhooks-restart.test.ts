// Crash and restart: a notify webhooks process is SIGKILLed in the middle of fanning out
// and delivering, NATS is restarted (its own server here, file storage), more events
// arrive meanwhile, a new process starts — and every (event, endpoint) is delivered, with
// no attempt number ever sent twice (counted at the receiver by webhook-id + attempt).
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { ensureNats, freePort, type NatsHandle } from '@hallmark/devstack';
import {
  connectBus,
  createLogger,
  newId,
  openDatabase,
  type Bus,
  type EventEnvelope,
  type Pool,
} from '@hallmark/kit';
import {
  closeTestDatabase,
  eventually,
  TEST_DATABASE_SERVER,
  uniqueDatabaseName,
} from '@hallmark/kit/testing';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createWebhooks } from '../src/webhooks/index.js';
import { makeCertificate, startReceiver, TEST_ENCRYPTION_KEY, type Receiver } from './webhooks-helpers.js';

const CALL = { requestId: 'req_test', deadlineMs: Infinity };
const REPO_ROOT = path.join(import.meta.dirname, '..', '..', '..');
const database = uniqueDatabaseName('notify');
const dataDir = mkdtempSync(path.join(tmpdir(), 'notify-restart-'));
let natsPort: number;
let nats: NatsHandle;
let natsUrl: string;
let pool: Pool;
let bus: Bus;
let receiver: Receiver;
const children: ChildProcess[] = [];

const startNats = async () => {
  nats = await ensureNats({
    dataDir,
    forceSpawn: true,
    port: natsPort,
    logFile: path.join(dataDir, 'nats.log'),
  });
  natsUrl = nats.url;
};

async function startNotify(): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', path.join(import.meta.dirname, 'webhooks-worker.fixture.ts')],
    {
      cwd: REPO_ROOT,
      env: {
        ...process.env,
        NODE_OPTIONS: '',
        DATABASE_URL: TEST_DATABASE_SERVER,
        NATS_URL: natsUrl,
        FIXTURE_DATABASE: database,
        FIXTURE_CA_FILE: path.join(dataDir, 'ca.pem'),
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  children.push(child);
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (b: Buffer) => (b.toString().includes('READY') ? resolve() : undefined));
    child.once('exit', (code) => reject(new Error(`fixture exited early (${code})`)));
  });
  return child;
}

const kill = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });

beforeAll(async () => {
  natsPort = await freePort();
  await startNats();
  const tls = await makeCertificate();
  writeFileSync(path.join(dataDir, 'ca.pem'), tls.cert);
  receiver = await startReceiver(tls);
  receiver.respond = async () => {
    await new Promise((r) => setTimeout(r, 5));
    return 200;
  };
  pool = await openDatabase({
    serverUrl: TEST_DATABASE_SERVER,
    database,
    migrationsDirs: [path.join(import.meta.dirname, '..', 'migrations')],
  });
  bus = await connectBus(natsUrl, 'restart-test');
}, 30_000);

afterAll(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) await kill(c);
  await bus?.close().catch(() => undefined);
  await receiver?.close();
  await nats?.stop();
  await closeTestDatabase(pool, database);
  rmSync(dataDir, { recursive: true, force: true });
}, 30_000);

/** Publishes `n` events, `gapMs` apart (0: at once). */
async function publish(enterpriseId: string, n: number, gapMs = 0): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    if (gapMs > 0) await new Promise((r) => setTimeout(r, gapMs));
    const event = {
      id: newId('event'),
      type: 'transaction.completed',
      source: 'vouchers',
      occurred_at: new Date().toISOString(),
      enterprise_id: enterpriseId,
      livemode: true,
      request_id: null,
      data: { object: { id: `txn_${i}`, amount: i } },
    } as EventEnvelope;
    await bus.js.publish(`hallmark.vouchers.${event.type}`, JSON.stringify(event), { msgID: event.id });
    ids.push(event.id);
  }
  return ids;
}

it('kill notify mid-fan-out and restart NATS: every delivery happens, none twice per attempt', async () => {
  const ent = newId('enterprise');
  const principal = {
    enterprise_id: ent,
    livemode: true,
    actor_id: 'user_t',
    actor_type: 'user',
    scopes: [],
  };
  // The API only (no workers) in this process, to create the endpoints.
  const { api } = createWebhooks(
    { pool, bus, log: createLogger('t', 'silent') },
    { encryptionKeys: TEST_ENCRYPTION_KEY, outboundAllowHosts: '127.0.0.1', retryScheduleS: [1] },
  );
  const paths = ['/a', '/b', '/c'];
  for (const p of paths)
    await api.createEndpoint(
      { principal, url: `${receiver.url}${p}`, events: ['transaction.completed'] },
      CALL,
    );

  // Events arrive while notify runs (the fan-out takes what has arrived in one batch, so
  // events published all at once would be fanned out before any delivery is made).
  const notify = await startNotify();
  const publishing = publish(ent, 60, 25);
  await eventually(() => expect(receiver.received.length).toBeGreaterThanOrEqual(30), {
    timeoutMs: 20_000,
    intervalMs: 10,
  });
  await kill(notify);
  const first = await publishing;
  const { rows: mid } = await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM webhook_deliveries');
  expect(mid[0]!.n).toBeLessThan(180); // killed mid-fan-out

  // NATS restarts (file storage); events keep coming while notify is down.
  await bus.close();
  await nats.stop();
  await startNats();
  bus = await connectBus(natsUrl, 'restart-test');
  const second = await publish(ent, 24);

  await startNotify();
  const all = [...first, ...second];
  await eventually(
    async () => {
      const { rows } = await pool.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM webhook_deliveries WHERE status = 'succeeded'`,
      );
      expect(rows[0]!.n).toBe(all.length * paths.length);
    },
    { timeoutMs: 40_000, intervalMs: 200 },
  );
  const { rows } = await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM webhook_deliveries');
  expect(rows[0]!.n).toBe(all.length * paths.length);

  for (const p of paths) {
    const got = receiver.received.filter((r) => r.path === p);
    const perAttempt = got.map((r) => `${r.headers['webhook-id']}#${r.headers['x-hallmark-attempt']}`);
    expect(new Set(perAttempt).size).toBe(perAttempt.length); // no attempt sent twice
    expect(new Set(got.map((r) => r.headers['webhook-id']))).toEqual(new Set(all)); // every event
  }
}, 90_000);
