// Allowlist on user provisioning through the real processes on anvil: the first call with a
// session token of an unknown user provisions the user in the keys service, whose user.created
// reaches the certificates service over NATS; the user's custodial wallet address ends
// `success` on the allowlist (gateway check) and on chain. The same event delivered again
// adds nothing.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { connectBus, randomBase62, serviceDatabaseUrl, newId, STREAM_NAME, type Bus } from '@hallmark/kit';
import { eventually } from '@hallmark/kit/testing';
import { Contract, JsonRpcProvider } from 'ethers';
import pg from 'pg';
import { startTestStack, type TestStack } from '../src/index.js';
import { createKey, type IssuedKey } from '../src/keys.js';

const DURABLE = 'certificates-user-provisioning';

let stack: TestStack;
let keysDb: pg.Client;
let certsDb: pg.Client;
let provider: JsonRpcProvider;
let bus: Bus;

beforeAll(async () => {
  stack = await startTestStack({ anvil: true });
  const connect = async (svc: string) => {
    const c = new pg.Client({
      connectionString: serviceDatabaseUrl(stack.postgres.url, `${stack.prefix}_${svc}`),
    });
    await c.connect();
    return c;
  };
  keysDb = await connect('keys');
  certsDb = await connect('certificates');
  provider = new JsonRpcProvider(stack.env.HALLMARK_CHAIN_RPC_URL, Number(stack.env.HALLMARK_CHAIN_ID), {
    staticNetwork: true,
  });
  bus = await connectBus(stack.nats.url, 'e2e-provisioning');
}, 120_000);

afterAll(async () => {
  await bus?.close();
  provider?.destroy();
  await keysDb?.end();
  await certsDb?.end();
  await stack?.close();
}, 60_000);

interface Provisioned {
  userId: string;
  address: string;
  key: IssuedKey;
  event: { id: string; subject: string; payload: unknown };
}
let provisioned: Provisioned;

async function allowlistRow(address: string) {
  const { rows } = await certsDb.query('SELECT * FROM allowlist_entries WHERE address = $1', [address]);
  return rows;
}

async function contractAddress(): Promise<string> {
  const { rows } = await certsDb.query<{ value: string }>(
    "SELECT value FROM chain_state WHERE key LIKE 'contract:%'",
  );
  return rows[0]!.value;
}

describe('allowlist on user provisioning', () => {
  it('a user provisioned by a first session call ends success on the allowlist with the chain having the address', async () => {
    const ent = newId('enterprise');
    const sub = `user-${randomBase62(8)}`;
    const session = await stack.token({ ent, sub, role: 'owner' });
    // The first call with this token provisions the user (keys service: user.created).
    const key = await createKey(stack, session, { permissions: ['users.read'] });
    const { rows: users } = await keysDb.query<{ id: string }>(
      'SELECT id FROM users WHERE enterprise_id = $1 AND subject = $2',
      [ent, sub],
    );
    const userId = users[0]!.id;
    const { rows: events } = await keysDb.query<{ id: string; subject: string; payload: unknown }>(
      "SELECT id, subject, payload FROM outbox WHERE type = 'user.created' AND payload->'data'->>'id' = $1",
      [userId],
    );
    expect(events).toHaveLength(1);

    const address = await eventually(
      async () => {
        const { rows } = await certsDb.query<{ address: string; enterprise_id: string }>(
          "SELECT address, enterprise_id FROM wallets WHERE owner_kind = 'user' AND owner_id = $1",
          [userId],
        );
        expect(rows).toHaveLength(1);
        expect(rows[0]!.enterprise_id).toBe(ent);
        return rows[0]!.address;
      },
      { timeoutMs: 30_000, intervalMs: 200 },
    );
    const check = await eventually(
      async () => {
        const res = await stack.call('GET', `/api/v1/allowlist/check/${address}`, { auth: key.key });
        expect(res.status).toBe(200);
        expect(res.body).toMatchObject({
          address,
          requested: true,
          allowlistStatus: 'success',
          onChain: true,
        });
        return res.body;
      },
      { timeoutMs: 30_000, intervalMs: 250 },
    );
    expect(check.transactionHash).toMatch(/^0x[0-9a-f]{64}$/);
    const contract = new Contract(
      await contractAddress(),
      ['function isAllowlisted(address) view returns (bool)'],
      provider,
    );
    expect(await contract.getFunction('isAllowlisted').staticCall(address)).toBe(true);

    // Later calls of the same user provision nothing again.
    await stack.call('GET', '/api/v1/api-keys', { auth: session });
    const { rows: again } = await keysDb.query(
      "SELECT 1 FROM outbox WHERE type = 'user.created' AND payload->'data'->>'id' = $1",
      [userId],
    );
    expect(again).toHaveLength(1);
    provisioned = { userId, address, key, event: events[0]! };
  }, 120_000);

  it('a redelivered user.created adds nothing twice', async () => {
    const { userId, address, event } = provisioned;
    const jsm = await bus.js.jetstreamManager();
    const before = await jsm.consumers.info(STREAM_NAME, DURABLE);
    const entry = await allowlistRow(address);
    // The relayer: the sender of the transaction that added the address.
    const relayer = (await provider.getTransaction(entry[0].transaction_hash))!.from;
    const nonce = await provider.getTransactionCount(relayer);

    // As the keys relay would re-publish it after JetStream's duplicate window: same event id,
    // a new message id.
    await bus.js.publish(event.subject, JSON.stringify(event.payload), { msgID: `${event.id}-again` });
    await eventually(
      async () => {
        const info = await jsm.consumers.info(STREAM_NAME, DURABLE);
        expect(info.delivered.consumer_seq).toBe(before.delivered.consumer_seq + 1);
        expect(info.num_ack_pending + info.num_pending).toBe(0);
      },
      { timeoutMs: 20_000, intervalMs: 100 },
    );
    await new Promise((r) => setTimeout(r, 2500)); // one pass of the allowlist writer (the mint worker's interval)

    const { rows: wallets } = await certsDb.query(
      "SELECT address FROM wallets WHERE owner_kind = 'user' AND owner_id = $1",
      [userId],
    );
    expect(wallets).toEqual([{ address }]);
    expect(await allowlistRow(address)).toEqual(entry);
    const { rows: seen } = await certsDb.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM processed_events WHERE consumer = $1 AND event_id = $2',
      [DURABLE, event.id],
    );
    expect(seen[0]!.n).toBe(1);
    expect(await provider.getTransactionCount(relayer)).toBe(nonce);
  }, 60_000);
});
