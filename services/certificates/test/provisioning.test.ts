// Allowlist on user provisioning on a real PostgreSQL, NATS JetStream and anvil, consumer and
// allowlist worker in-process: a user.created event as the keys service's outbox relay
// publishes it gives the user a custodial wallet whose address ends `success` on the allowlist
// and on chain; the same event delivered again (re-published under another message id, which
// JetStream cannot drop) adds nothing.
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path, { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { freePort, startAnvil, type AnvilHandle } from '@hallmark/devstack';
import {
  connectBus,
  createLogger,
  Encryptor,
  envelopeOf,
  IntervalWorker,
  newId,
  openDatabase,
  STREAM_NAME,
  type Bus,
  type EventEnvelope,
  type Pool,
} from '@hallmark/kit';
import {
  closeTestDatabase,
  eventually,
  TEST_DATABASE_SERVER,
  TEST_NATS_URL,
  uniqueDatabaseName,
} from '@hallmark/kit/testing';
import { AllowlistProcessor } from '../src/allowlist/workers/processor.js';
import { ProvisioningConsumer } from '../src/allowlist/workers/provisioning.js';
import { AllowlistStore } from '../src/allowlist/store.js';
import type { Chain } from '../src/chain/setup.js';
import { connectTestChain } from './test-chain.js';
import { TxSender } from '../src/chain/tx-sender.js';
import { WalletStore } from '../src/wallets/store.js';

const log = createLogger('provisioning-test', 'silent');
const anvilLog = join(tmpdir(), `hallmark-anvil-provisioning-${process.pid}.log`);
// A subject space of this test's own on the shared NATS server, so no other consumer sees it.
const source = `provtest${Date.now()}`;
const durable = `${source}-provisioning`;

let anvil: AnvilHandle;
let database: string;
let pool: Pool;
let bus: Bus;
let chain: Chain;
let wallets: WalletStore;
let allowlist: AllowlistStore;
let consumer: ProvisioningConsumer;
let worker: IntervalWorker;

beforeAll(async () => {
  anvil = await startAnvil({ port: await freePort(), logFile: anvilLog });
  database = uniqueDatabaseName('certificates_provisioning');
  pool = await openDatabase({
    serverUrl: TEST_DATABASE_SERVER,
    database,
    migrationsDirs: [path.join(import.meta.dirname, '..', 'migrations')],
    max: 6,
  });
  bus = await connectBus(TEST_NATS_URL, 'certificates-provisioning-test');
  chain = await connectTestChain(anvil, pool, log);
  wallets = new WalletStore(pool, Encryptor.generateKey());
  allowlist = new AllowlistStore(pool);
  const processor = new AllowlistProcessor({
    store: allowlist,
    contract: chain.contract,
    tx: new TxSender({ provider: chain.provider, signer: chain.signer, chainId: chain.chainId, log }),
    confirmations: 1,
    batchSize: 100,
    maxRetries: 2,
    retryDelayMs: 0,
    receiptTimeoutMs: 20_000,
    log,
  });
  worker = new IntervalWorker({ name: 'allowlist', intervalMs: 5_000, log }, () => processor.runOnce());
  consumer = new ProvisioningConsumer({
    bus,
    pool,
    log,
    wallets,
    allowlist,
    onRequested: () => worker.wake(),
    durable,
    filter: `hallmark.${source}.user.created`,
  });
  await worker.start();
  await consumer.start();
}, 60_000);

afterAll(async () => {
  await consumer?.stop();
  await worker?.stop();
  const jsm = await bus.js.jetstreamManager();
  await jsm.consumers.delete(STREAM_NAME, durable).catch(() => undefined);
  await bus?.close();
  chain?.provider.destroy();
  await closeTestDatabase(pool, database);
  await anvil?.stop();
  rmSync(anvilLog, { force: true });
});

/** Publishes as the keys service's outbox relay does (message id = event id unless given). */
async function publish(event: EventEnvelope, msgID = event.id): Promise<void> {
  await bus.js.publish(`hallmark.${source}.user.created`, JSON.stringify(event), { msgID });
}

const userCreated = (user = newId('user'), enterprise = newId('enterprise')) =>
  envelopeOf('keys', {
    type: 'user.created',
    enterpriseId: enterprise,
    data: { id: user, email: `${user}@example.test`, role: 'member', enterprise_id: enterprise },
  });

/** Delivered and acknowledged messages of the durable consumer. */
async function consumerProgress(): Promise<{ delivered: number; pending: number }> {
  const info = await (await bus.js.jetstreamManager()).consumers.info(STREAM_NAME, durable);
  return { delivered: info.delivered.consumer_seq, pending: info.num_ack_pending + info.num_pending };
}

async function walletsOf(userId: string) {
  const { rows } = await pool.query<{ address: string; enterprise_id: string }>(
    "SELECT address, enterprise_id FROM wallets WHERE owner_kind = 'user' AND owner_id = $1",
    [userId],
  );
  return rows;
}

describe('allowlist on user provisioning', () => {
  it('a newly provisioned user gets a custodial wallet whose address ends success on the allowlist and on chain', async () => {
    const event = userCreated();
    const { id: userId, enterprise_id: enterpriseId } = event.data;
    await publish(event);

    const [wallet] = await eventually(
      async () => {
        const rows = await walletsOf(userId);
        expect(rows).toHaveLength(1);
        return rows;
      },
      { timeoutMs: 15_000, intervalMs: 100 },
    );
    expect(wallet!.enterprise_id).toBe(enterpriseId);
    const entry = await eventually(
      async () => {
        const e = await allowlist.get(wallet!.address);
        expect(e?.status).toBe('success');
        return e!;
      },
      { timeoutMs: 15_000, intervalMs: 100 },
    );
    expect(entry.transactionHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(await chain.contract.isAllowlisted(wallet!.address)).toBe(true);
  }, 60_000);

  it('a redelivered user.created (re-published under another message id) adds nothing twice', async () => {
    const event = userCreated();
    const userId = event.data.id;
    await publish(event);
    const wallet = await eventually(
      async () => {
        const e = await allowlist.get((await walletsOf(userId))[0]?.address ?? '');
        expect(e?.status).toBe('success');
        return e!;
      },
      { timeoutMs: 15_000, intervalMs: 100 },
    );
    const before = await consumerProgress();
    const nonce = await chain.provider.getTransactionCount(chain.signer.address);

    // Outside JetStream's duplicate window a relay re-publish arrives as a new message.
    await publish(event, `${event.id}-again`);
    await eventually(
      async () => {
        const now = await consumerProgress();
        expect(now.delivered).toBe(before.delivered + 1);
        expect(now.pending).toBe(0);
      },
      { timeoutMs: 15_000, intervalMs: 100 },
    );
    await worker.stop(); // let any pass the redelivery could have caused finish
    await worker.start();

    expect(await walletsOf(userId)).toHaveLength(1);
    expect(await allowlist.get(wallet.address)).toEqual(wallet);
    const { rows } = await pool.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM processed_events WHERE consumer = $1 AND event_id = $2',
      [durable, event.id],
    );
    expect(rows[0]!.n).toBe(1);
    expect(await chain.provider.getTransactionCount(chain.signer.address)).toBe(nonce);
  }, 60_000);

  it('a user whose wallet already exists (made by a transfer to the user) has that address allowlisted', async () => {
    const event = userCreated();
    const existing = await wallets.ensure(event.data.enterprise_id, 'user', event.data.id);
    await publish(event);
    await eventually(
      async () => expect((await allowlist.get(existing.wallet.address))?.status).toBe('success'),
      { timeoutMs: 15_000, intervalMs: 100 },
    );
    expect(await walletsOf(event.data.id)).toEqual([
      { address: existing.wallet.address, enterprise_id: event.data.enterprise_id },
    ]);
  }, 60_000);
});
