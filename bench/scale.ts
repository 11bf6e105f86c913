// A million certificates an hour, in simulation: 100,000 items (two concurrent order jobs of
// 50,000, the most one job takes) through the real gateway, bulk, Restate and certificates on
// an anvil that mines a block every 2 s with a 30M block gas limit and 3 confirmations, once
// with 1 mint signer and once with 4 (HALLMARK_RELAYER_SIGNERS), each on a stack of its own.
// Prints items/s, the blocks the run took and the blocks holding its mint transactions, the
// time 1,000,000 items would take at that rate (goal with 4 signers: ≤ 1 hour), and the peak
// RSS of the bulk and certificates processes over the same processes warmed up by a small
// job (goal: within +100 MB). Images are not archived (HALLMARK_BULK_FETCH_IMAGES=false):
// this measures issuance and the chain; `pnpm bench bulk` measures the archive.
// BENCH_SCALE_SIGNERS (comma-separated, default `1,4`), BENCH_SCALE_IN_FLIGHT (transactions in
// flight per signer, default 8) and BENCH_SCALE_DEPTH (batches in flight per job, default 4)
// vary the run.
import type { TestStack } from '@hallmark/e2e';
import { idempotencyKeyOf, orderBody } from '@hallmark/e2e/bulk';
import { loadavg } from 'node:os';
import { JsonRpcProvider } from 'ethers';
import pg from 'pg';
import { rssSampler } from './bulk.js';
import { benchStack } from './stack.js';
import { cpuMs, sized, SMOKE, verdict } from './lib.js';

const JOB_ITEMS = sized(50_000, 300);
const JOBS = 2;
const BLOCK_TIME_SEC = sized(2, 1);
const GAS_LIMIT = 30_000_000;
const CONFIRMATIONS = 3;
const SIGNERS = (process.env.BENCH_SCALE_SIGNERS ?? sized('1,4', '2')).split(',').map(Number);
const IN_FLIGHT = process.env.BENCH_SCALE_IN_FLIGHT ?? '8';
const DEPTH = process.env.BENCH_SCALE_DEPTH ?? '4';
const IMAGE = 'https://images.example.com/scale.png';
const n = (x: number) => Math.round(x).toLocaleString('en');

interface ScaleRun {
  signers: number;
  seconds: number;
  itemsPerSec: number;
  blocks: number;
  mintBlocks: number;
  fullestBlockGas: number;
  rss: Record<'bulk' | 'certificates', { warm: number; peak: number }>;
  cpuPerItem: (readonly [string, number])[];
  /** Mint transactions that reverted (their items were minted again by the job's retry). */
  reverted: number;
  load: number;
}

/** Submits an order job through the gateway; answers its id. */
async function startOrderJob(stack: TestStack, auth: string, items = JOB_ITEMS): Promise<string> {
  const body = orderBody(items);
  for (const m of body.metadata as { imageUrl: string }[]) m.imageUrl = IMAGE;
  const res = await stack.call('POST', '/api/bulk-mint', {
    auth,
    body,
    headers: { 'idempotency-key': idempotencyKeyOf(body) },
  });
  if (res.status !== 201) throw new Error(`job refused: ${res.status} ${res.text.slice(0, 300)}`);
  return res.body.jobId as string;
}

/**
 * A connection to one service's database of the stack, retried while the server is full
 * (`too many clients`: this machine's PostgreSQL is shared with other stacks).
 */
async function connect(stack: TestStack, service: string): Promise<pg.Client> {
  const url = new URL(stack.postgres.url);
  url.pathname = `/${stack.prefix}_${service}`;
  for (let attempt = 0; ; attempt++) {
    const db = new pg.Client({ connectionString: url.toString() });
    db.on('error', () => undefined); // a failed or dropped connection is handled where it is used
    try {
      await db.connect();
      return db;
    } catch (err) {
      await db.end().catch(() => undefined);
      if ((err as { code?: string }).code !== '53300' || attempt >= 60) throw err;
      await new Promise((r) => setTimeout(r, 500));
    }
  }
}

async function query<T extends pg.QueryResultRow>(
  stack: TestStack,
  service: string,
  sql: string,
  params: unknown[] = [],
): Promise<T[]> {
  const db = await connect(stack, service);
  try {
    return (await db.query<T>(sql, params)).rows;
  } finally {
    await db.end();
  }
}

/** Waits until every job ended, polling their rows over one connection. */
async function untilDone(stack: TestStack, jobIds: string[]): Promise<void> {
  const db = await connect(stack, 'bulk');
  try {
    for (;;) {
      const { rows } = await db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM jobs WHERE id = ANY($1) AND status IN ('completed', 'failed', 'cancelled')`,
        [jobIds],
      );
      if (rows[0]!.n === jobIds.length) return;
      await new Promise((r) => setTimeout(r, 250));
    }
  } finally {
    await db.end();
  }
}

async function runWith(signers: number): Promise<ScaleRun> {
  const stack: TestStack = await benchStack({
    anvil: { blockTimeSec: BLOCK_TIME_SEC, gasLimit: GAS_LIMIT },
    restate: true,
    env: {
      HALLMARK_RELAYER_SIGNERS: String(signers),
      HALLMARK_RELAYER_MAX_IN_FLIGHT: IN_FLIGHT,
      HALLMARK_BULK_PIPELINE_DEPTH: DEPTH,
      HALLMARK_CHAIN_CONFIRMATIONS: String(CONFIRMATIONS),
      HALLMARK_BULK_FETCH_IMAGES: 'false',
      HALLMARK_CERTIFICATES_MINT_INTERVAL_MS: '500',
    },
  });
  const provider = new JsonRpcProvider(stack.anvil!.rpcUrl, undefined, { staticNetwork: true });
  try {
    const auth = await stack.token();
    // warm-up: code paths, pools, JIT
    await untilDone(stack, [await startOrderJob(stack, auth, sized(1_000, 20))]);
    const pids = {
      bulk: stack.processes.get('bulk')!.pid,
      certificates: stack.processes.get('certificates')!.pid,
    };
    const warm = {
      bulk: rssSampler(pids.bulk).stop(),
      certificates: rssSampler(pids.certificates, 'the certificates process').stop(),
    };
    const samplers = {
      bulk: rssSampler(pids.bulk),
      certificates: rssSampler(pids.certificates, 'the certificates process'),
    };
    const [before] = await query<{ id: string }>(
      stack,
      'certificates',
      'SELECT coalesce(max(id), 0)::text AS id FROM chain_submissions',
    );
    const firstBlock = await provider.getBlockNumber();
    // CPU per item by process (where the time goes when the chain is not the limit)
    const cpuPids = ['gateway', 'bulk', 'certificates', 'notify'].map((name) => ({
      name,
      pid: stack.processes.get(name)!.pid,
    }));
    const cpuBefore = cpuPids.map((p) => cpuMs(p.pid));
    const started = performance.now();
    const jobs = await Promise.all(Array.from({ length: JOBS }, () => startOrderJob(stack, auth)));
    await untilDone(stack, jobs);
    const seconds = (performance.now() - started) / 1000;
    const lastBlock = await provider.getBlockNumber();
    const cpuPerItem = cpuPids.map(
      (p, i) => [p.name, (cpuMs(p.pid) - cpuBefore[i]!) / (JOBS * JOB_ITEMS)] as const,
    );
    const rss = {
      bulk: { warm: warm.bulk, peak: samplers.bulk.stop() },
      certificates: { warm: warm.certificates, peak: samplers.certificates.stop() },
    };
    for (const jobId of jobs) {
      const [job] = await query<{ status: string; success_count: number }>(
        stack,
        'bulk',
        'SELECT status, success_count FROM jobs WHERE id = $1',
        [jobId],
      );
      if (job?.status !== 'completed' || job.success_count !== JOB_ITEMS) {
        throw new Error(`job ${jobId} ended ${job?.status} with ${job?.success_count} items minted`);
      }
    }
    const mints = await query<{ block_number: string; tx_hash: string }>(
      stack,
      'certificates',
      `SELECT block_number::text, tx_hash FROM chain_submissions WHERE id > $1 AND status = 'confirmed'`,
      [before!.id],
    );
    const [reverted] = await query<{ n: number }>(
      stack,
      'certificates',
      `SELECT count(*)::int AS n FROM chain_submissions WHERE id > $1 AND status = 'failed'`,
      [before!.id],
    );
    const gasByBlock = new Map<string, number>();
    for (const m of mints) {
      const receipt = await provider.getTransactionReceipt(m.tx_hash);
      gasByBlock.set(m.block_number, (gasByBlock.get(m.block_number) ?? 0) + Number(receipt!.gasUsed));
    }
    const items = JOBS * JOB_ITEMS;
    return {
      signers,
      seconds,
      itemsPerSec: items / seconds,
      blocks: lastBlock - firstBlock,
      mintBlocks: gasByBlock.size,
      fullestBlockGas: Math.max(0, ...gasByBlock.values()),
      rss,
      cpuPerItem,
      reverted: reverted!.n,
      load: loadavg()[0]!,
    };
  } finally {
    provider.destroy();
    await stack.close();
  }
}

export async function benchScale(): Promise<void> {
  const items = JOBS * JOB_ITEMS;
  console.log(
    `\n${n(items)} items (${JOBS} concurrent order jobs of ${n(JOB_ITEMS)}) on anvil: a block every ` +
      `${BLOCK_TIME_SEC} s, ${n(GAS_LIMIT)} gas per block, ${CONFIRMATIONS} confirmations; ` +
      `${IN_FLIGHT} transactions in flight per signer, ${DEPTH} batches in flight per job`,
  );
  const runs: ScaleRun[] = [];
  for (const signers of SIGNERS) {
    const r = await runWith(signers);
    runs.push(r);
    const hours = 1_000_000 / r.itemsPerSec / 3600;
    const growth = (p: 'bulk' | 'certificates') => {
      const d = r.rss[p].peak - r.rss[p].warm;
      return `${r.rss[p].peak.toFixed(0)} MB peak, ${d >= 0 ? '+' : '-'}${Math.abs(d).toFixed(0)} MB over warm (goal ≤ +100 MB: ${verdict(d <= 100)})`;
    };
    console.log(`\n${signers} signer${signers === 1 ? '' : 's'} (load average ${r.load.toFixed(1)}):`);
    console.log(`  time                          ${r.seconds.toFixed(1)} s`);
    console.log(`  throughput                    ${n(r.itemsPerSec)} items/s`);
    console.log(
      `  blocks                        ${r.blocks} in the run, ${r.mintBlocks} with its mint transactions ` +
        `(fullest: ${n(r.fullestBlockGas)} gas, ${((100 * r.fullestBlockGas) / GAS_LIMIT).toFixed(1)}% of the limit); ` +
        `${r.reverted} mint transactions reverted`,
    );
    const goal = signers >= 4 ? ` (goal ≤ 1 h with 4 signers: ${verdict(hours <= 1)})` : '';
    console.log(
      `  1,000,000 items, extrapolated ${hours >= 1 ? `${hours.toFixed(2)} h` : `${(hours * 60).toFixed(1)} min`}${goal}`,
    );
    console.log(`  bulk process                  ${growth('bulk')}`);
    console.log(`  certificates process          ${growth('certificates')}`);
    console.log(
      `  CPU per item                  ${r.cpuPerItem.map(([name, ms]) => `${name} ${ms.toFixed(2)} ms`).join(', ')}`,
    );
  }
  const one = runs.find((r) => r.signers === 1);
  for (const r of runs) {
    if (one && r !== one) {
      console.log(
        `\n${r.signers} signers vs 1: ${(r.itemsPerSec / one.itemsPerSec).toFixed(2)}× the items/s`,
      );
    }
  }
  if (SMOKE) console.log('(smoke: small counts; the extrapolation means nothing here)');
}
