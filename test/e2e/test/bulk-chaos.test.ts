// Chaos: bulk, certificates and the Restate server are SIGKILLed at random moments while a
// 2,000-item order job runs, and restarted. The job must end with exactly 2,000 distinct
// tokens and 2,000 vouchers: nothing lost, nothing minted twice.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { RestateHandle } from '@hallmark/devstack';
import { idempotencyKeyOf, orderBody, serviceQuery, waitForJob } from '../src/bulk.js';
import { startTestStack, type TestStack } from '../src/index.js';

let stack: TestStack;
let restate: RestateHandle;

beforeAll(async () => {
  stack = await startTestStack({
    anvil: true,
    restate: true,
    // Small batches, one at a time: 20 batch boundaries for the kills to land between and
    // inside, and a job long enough for all three kills to hit it.
    env: {
      HALLMARK_BULK_FETCH_IMAGES: 'false',
      HALLMARK_BULK_BATCH_SIZE: '100',
      HALLMARK_BULK_PIPELINE_DEPTH: '1',
    },
  });
  restate = stack.restate!;
}, 180_000);

afterAll(async () => stack?.close());

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const random = (min: number, max: number) => min + Math.floor(Math.random() * (max - min));

async function killAndRestart(victim: 'bulk' | 'certificates' | 'restate'): Promise<void> {
  if (victim === 'restate') {
    process.kill(restate.pid, 'SIGKILL');
    await restate.exited;
    await sleep(random(200, 1500));
    restate = await stack.restartRestate();
    return;
  }
  const proc = stack.processes.get(victim)!;
  process.kill(proc.pid, 'SIGKILL');
  await proc.exited;
  await sleep(random(200, 1500));
  await stack.startService(victim);
}

describe('bulk job under chaos', () => {
  it('a 2,000-item job survives kill -9 of bulk, certificates and Restate with 2,000 distinct tokens and vouchers', async () => {
    const ent = `ent_${'c'.repeat(24)}`;
    const auth = await stack.token({ ent });
    const body = orderBody(2000);
    const created = await stack.call('POST', '/api/bulk-mint', {
      auth,
      body,
      headers: { 'idempotency-key': idempotencyKeyOf(body) },
    });
    expect(created.status).toBe(201);
    expect(created.body.status).toBe('pending');
    const jobId: string = created.body.jobId;

    // Kill each of the three, in a random order, then each again in another random order.
    const three = ['bulk', 'certificates', 'restate'] as const;
    const shuffled = () => [...three].sort(() => Math.random() - 0.5);
    const victims = [...shuffled(), ...shuffled()];
    const kills: string[] = [];
    for (const victim of victims) {
      await sleep(random(300, 1500));
      const now = await serviceQuery<{ status: string }>(
        stack,
        'bulk',
        'SELECT status FROM jobs WHERE id = $1',
        [jobId],
      );
      if (now[0]?.status !== 'processing' && now[0]?.status !== 'queued') break;
      await killAndRestart(victim);
      kills.push(victim);
    }
    // Every one of the three was killed while the job was running.
    expect(new Set(kills)).toEqual(new Set(['bulk', 'certificates', 'restate']));
    process.stdout.write(`bulk chaos: killed ${kills.join(', ')}\n`);

    const job = await waitForJob(stack, auth, jobId, 300_000);
    expect({
      status: job.status,
      success: job.summary.successCount,
      failed: job.summary.failureCount,
    }).toEqual({
      status: 'completed',
      success: 2000,
      failed: 0,
    });
    const vouchers = job.results.vouchers as { id: string; tokenId: number }[];
    expect(vouchers).toHaveLength(2000);
    expect(new Set(vouchers.map((v) => v.id)).size).toBe(2000);
    expect(new Set(vouchers.map((v) => v.tokenId)).size).toBe(2000);

    // The certificates service holds exactly 2,000 certificates for the enterprise, all minted,
    // with distinct tokens, and exactly 2,000 vouchers: no batch was minted twice.
    const [certs] = await serviceQuery<{ n: number; minted: number; tokens: number }>(
      stack,
      'certificates',
      `SELECT count(*) AS n, count(*) FILTER (WHERE status = 'minted') AS minted,
              count(DISTINCT token_id) AS tokens FROM certificates WHERE enterprise_id = $1`,
      [ent],
    );
    expect(Object.values(certs!).map(Number)).toEqual([2000, 2000, 2000]);
    const [vs] = await serviceQuery<{ n: number }>(
      stack,
      'certificates',
      'SELECT count(*) AS n FROM certificate_vouchers WHERE enterprise_id = $1',
      [ent],
    );
    expect(Number(vs!.n)).toBe(2000);
  }, 420_000);
});
