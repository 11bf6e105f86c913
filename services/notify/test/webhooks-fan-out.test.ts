// The fan-out of a batch of domain events (the consumer hands over everything already
// received, events of many enterprises and both modes at once), on the real PostgreSQL:
// each event's deliveries go to its own enterprise and mode's receivers only, of the right
// type, and a batch fanned out again creates nothing.
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import {
  connectBus,
  createLogger,
  newId,
  openDatabase,
  transaction,
  type Bus,
  type EventEnvelope,
  type Pool,
} from '@hallmark/kit';
import {
  closeTestDatabase,
  TEST_DATABASE_SERVER,
  TEST_NATS_URL,
  uniqueDatabaseName,
} from '@hallmark/kit/testing';
import type { Principal } from '@hallmark/proto/common/v1/common';
import path from 'node:path';
import { createWebhooks, type Webhooks } from '../src/webhooks/index.js';
import { TEST_ENCRYPTION_KEY } from './webhooks-helpers.js';

const CALL = { requestId: 'req_test', deadlineMs: Infinity };
const database = uniqueDatabaseName('notify');
let pool: Pool;
let bus: Bus;
let webhooks: Webhooks;

const principal = (enterpriseId: string, livemode: boolean): Principal => ({
  enterprise_id: enterpriseId,
  livemode,
  actor_id: 'user_test',
  actor_type: 'user',
  scopes: ['admin.*'],
});

const event = (type: string, source: string, enterpriseId: string, livemode: boolean, data: unknown) =>
  ({
    id: newId('event'),
    type,
    source,
    occurred_at: new Date().toISOString(),
    enterprise_id: enterpriseId,
    livemode,
    request_id: null,
    data,
  }) as EventEnvelope;

beforeAll(async () => {
  pool = await openDatabase({
    serverUrl: TEST_DATABASE_SERVER,
    database,
    migrationsDirs: [path.join(import.meta.dirname, '..', 'migrations')],
  });
  bus = await connectBus(TEST_NATS_URL, 'notify-fan-out-test');
  // No workers: the test calls the fan-out itself and reads the rows it wrote.
  webhooks = createWebhooks(
    { pool, bus, log: createLogger('notify-test', 'silent') },
    { encryptionKeys: TEST_ENCRYPTION_KEY, outboundAllowHosts: '127.0.0.1', retryScheduleS: [1] },
  );
}, 30_000);

afterAll(async () => {
  await bus.close();
  await closeTestDatabase(pool, database);
});

it('a batch of events of two enterprises and both modes: each reaches only its own enterprise and mode, by type, once', async () => {
  const [a, b] = [newId('enterprise'), newId('enterprise')];
  const receivers: Record<string, string> = {};
  // Each (enterprise, mode) gets an endpoint for transaction.completed, a subscription to
  // bulk.job.completed and a listen session for every type.
  for (const ent of [a, b])
    for (const livemode of [true, false]) {
      const name = `${ent === a ? 'a' : 'b'}-${livemode ? 'live' : 'test'}`;
      const p = principal(ent, livemode);
      const ep = await webhooks.api.createEndpoint(
        { principal: p, url: `https://127.0.0.1:9/${name}`, events: ['transaction.completed'] },
        CALL,
      );
      const sub = await webhooks.api.createSubscription(
        { principal: p, url: `https://127.0.0.1:9/${name}/sub`, events: ['bulk.job.completed'] },
        CALL,
      );
      const session = await webhooks.sessions.open(
        { enterpriseId: ent, livemode },
        { events: [], secret: 'whsec_test', actorId: null },
      );
      receivers[ep.id] = `${name} endpoint`;
      receivers[sub.id] = `${name} subscription`;
      receivers[session.id] = `${name} session`;
    }
  // A disabled endpoint of a takes nothing.
  const off = await webhooks.api.createEndpoint(
    { principal: principal(a, true), url: 'https://127.0.0.1:9/off', events: ['transaction.completed'] },
    CALL,
  );
  await webhooks.api.updateEndpoint(
    { principal: principal(a, true), endpoint_id: off.id, status: 'disabled', events: [], set_events: false },
    CALL,
  );

  const txn = { object: { id: newId('transaction'), type: 'voucher_redemption', amount: 1 } };
  const job = { jobId: 'job_1', status: 'completed' };
  const events = [
    event('transaction.completed', 'vouchers', a, true, txn),
    event('transaction.completed', 'vouchers', b, false, txn),
    event('bulk.job.completed', 'bulk', b, true, job),
    event('transaction.completed', 'vouchers', a, false, txn),
    event('voucher.created', 'vouchers', a, true, { object: { id: 'v_internal' } }), // internal: no webhook
  ];
  const created = await transaction(pool, (tx) => webhooks.service.fanOut(tx, events));

  const { rows } = await pool.query<{ event_id: string; receiver: string; event_type: string }>(
    `SELECT event_id, coalesce(endpoint_id, subscription_id, session_id) AS receiver, event_type
       FROM webhook_deliveries`,
  );
  const got = rows
    .map((r) => `${events.findIndex((e) => e.id === r.event_id)} ${r.event_type} → ${receivers[r.receiver]}`)
    .sort();
  expect(got).toEqual(
    [
      '0 transaction.completed → a-live endpoint',
      '0 transaction.completed → a-live session',
      '1 transaction.completed → b-test endpoint',
      '1 transaction.completed → b-test session',
      '2 bulk.job.completed → b-live subscription',
      '2 bulk.job.completed → b-live session',
      '3 transaction.completed → a-test endpoint',
      '3 transaction.completed → a-test session',
    ].sort(),
  );
  expect(created).toBe(8);
  // The same batch again (a redelivery the consumer's dedupe missed) creates nothing.
  expect(await transaction(pool, (tx) => webhooks.service.fanOut(tx, events))).toBe(0);
});
