// Kill -9 during paid orders: platform, bulk and the Restate server are SIGKILLed at random
// moments while a large order's job runs (and a second order arrives while platform is down,
// redelivered afterwards as the platform retries webhooks). Each order must end with exactly
// one bulk job, one voucher per unit, and exactly one fulfilment.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { RestateHandle } from '@hallmark/devstack';
import { startPlatformSim, type PlatformSim } from '@hallmark/platform-sim';
import { serviceQuery } from '../src/bulk.js';
import { startTestStack, type TestStack } from '../src/index.js';
import { signedCallback, until } from '../src/platform.js';

const SHOP = 'kill-boutique.myshopify.com';
const SECRET = 'kill-test-app-secret';
let stack: TestStack;
let sim: PlatformSim;
let restate: RestateHandle;

beforeAll(async () => {
  sim = await startPlatformSim({ apiKey: 'kill-app', apiSecret: SECRET });
  stack = await startTestStack({
    anvil: true,
    restate: true,
    env: {
      HALLMARK_BULK_FETCH_IMAGES: 'false',
      HALLMARK_BULK_BATCH_SIZE: '50',
      HALLMARK_BULK_PIPELINE_DEPTH: '1',
      HALLMARK_PLATFORM_ADMIN_URL: sim.adminUrlTemplate,
      HALLMARK_PLATFORM_API_KEY: 'kill-app',
      HALLMARK_PLATFORM_API_SECRET: SECRET,
      HALLMARK_PLATFORM_APP_URL: 'https://app.example.test/installed',
      HALLMARK_PLATFORM_HTTP_TIMEOUT_MS: '2000',
      HALLMARK_PLATFORM_SUBMIT_INTERVAL_MS: '500',
    },
  });
  restate = stack.restate!;
}, 240_000);

afterAll(async () => {
  await stack?.close();
  await sim?.close();
}, 120_000);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const random = (min: number, max: number) => min + Math.floor(Math.random() * (max - min));

async function kill(victim: 'platform' | 'bulk' | 'restate') {
  if (victim === 'restate') {
    process.kill(restate.pid, 'SIGKILL');
    await restate.exited;
    return;
  }
  const proc = stack.processes.get(victim)!;
  process.kill(proc.pid, 'SIGKILL');
  await proc.exited;
}

async function restart(victim: 'platform' | 'bulk' | 'restate') {
  if (victim === 'restate') restate = await stack.restartRestate();
  else await stack.startService(victim);
}

const fulfilmentsOf = (orderId: number) =>
  sim.sim.view(SHOP).fulfillments.filter((f) => f.orderId === orderId);

describe('paid orders under kill -9', () => {
  it('ends each order with one job, its vouchers and one fulfilment although platform, bulk and Restate die', async () => {
    const ent = `ent_${'k'.repeat(24)}`;
    const session = await stack.token({ ent });
    sim.sim.addShop(SHOP);
    const cb = await fetch(await signedCallback(stack, session, SHOP), { redirect: 'manual' });
    expect(cb.status).toBe(302);
    const product = sim.sim.addProduct(SHOP, {
      title: 'Watch',
      imageUrl: 'https://images.example.test/watch.png',
    });

    // A large order (its job runs for a while) ...
    const big = await sim.sim.createOrder(SHOP, { lineItems: [{ productId: product.id, quantity: 400 }] });
    expect((await sim.sim.pay(SHOP, big.order.id))[0]!.status).toBe(200);
    await until('the big job running', async () => {
      const rows = await serviceQuery<{ status: string }>(stack, 'bulk', 'SELECT status FROM jobs');
      return rows.some((r) => r.status === 'processing');
    });

    // ... then each of the three killed, up to twice, in random orders.
    const three = ['platform', 'bulk', 'restate'] as const;
    const shuffled = () => [...three].sort(() => Math.random() - 0.5);
    const kills: string[] = [];
    let small: { id: number; webhookId: string } | null = null;
    // Each dies at least once (the first round always runs, even if the big order finishes
    // early: a kill after fulfilment must not duplicate it either); the second round only
    // while the big order is not yet fulfilled.
    const rounds = [...shuffled(), ...shuffled()];
    for (const [i, victim] of rounds.entries()) {
      if (i >= three.length && fulfilmentsOf(big.order.id).length > 0) break;
      await sleep(random(200, 1200));
      await kill(victim);
      kills.push(victim);
      if (victim === 'platform' && !small) {
        // A second order is paid while platform is down: the webhook fails and is redelivered.
        const { order } = await sim.sim.createOrder(SHOP, {
          lineItems: [{ productId: product.id, quantity: 2 }],
        });
        const sent = await sim.sim.pay(SHOP, order.id);
        expect(sent[0]!.status).not.toBe(200);
        small = { id: order.id, webhookId: sent[0]!.webhookId };
      }
      await sleep(random(200, 1200));
      await restart(victim);
    }
    process.stdout.write(`platform kill test: killed ${kills.join(', ')}\n`);
    expect(new Set(kills)).toEqual(new Set(three));
    expect(small).not.toBeNull();
    // The platform retries a failed webhook until it is answered 200 (the part just restarted
    // may still be coming up); every retry carries the same webhook id, so it counts once.
    const statuses: Array<number | string> = [];
    await until(
      'the redelivered webhook answered 200',
      async () => {
        const [sent] = await sim.sim.redeliver(SHOP, small!.webhookId);
        statuses.push(sent!.status);
        return sent!.status === 200;
      },
      60_000,
    );
    process.stdout.write(`platform kill test: redelivery answers ${statuses.join(', ')}\n`);

    for (const [orderId, units] of [
      [big.order.id, 400],
      [small!.id, 2],
    ] as const) {
      const f = await until(`fulfilment of ${orderId}`, async () => fulfilmentsOf(orderId)[0], 300_000);
      expect(f.trackingNumber).toMatch(/^0x[0-9a-f]{64}$/);
      const gid = `gid://shopify/Order/${orderId}`;
      const jobs = await serviceQuery<{ id: string; success_count: number; status: string }>(
        stack,
        'bulk',
        "SELECT id, success_count, status FROM jobs WHERE external_context->>'orderId' = $1",
        [gid],
      );
      expect(jobs.map((j) => [j.status, Number(j.success_count)])).toEqual([['completed', units]]);
    }
    // Nothing arrives late: still one fulfilment each, and one voucher per unit.
    await sleep(3000);
    expect(fulfilmentsOf(big.order.id)).toHaveLength(1);
    expect(fulfilmentsOf(small!.id)).toHaveLength(1);
    const [vouchers] = await serviceQuery<{ n: string }>(
      stack,
      'certificates',
      'SELECT count(*) AS n FROM certificate_vouchers WHERE enterprise_id = $1',
      [ent],
    );
    expect(Number(vouchers!.n)).toBe(402);
  }, 600_000);
});
