// Bulk issuance, in one run:
//  1. CSV parse + validate throughput (rows/s) of the bulk service's streamed parser on 50,000
//     generated rows, next to csv-parse alone on the same bytes (the baseline: what parsing
//     costs without our validation and streaming);
//  2. a 50,000-item order job end to end through the real gateway on anvil and Restate: time,
//     items/s, CPU ms per item of every process and gas per certificate (goal ≤ 30 s on this
//     2-core machine);
//  3. peak RSS of the bulk process while it runs a 1,000-item and a 50,000-item job, and while
//     it takes a 50,000-row CSV upload (goal: flat — ≤ 100 MB growth); and while it answers
//     all 50,000 results (the status with `vouchers=all`, streamed page by page, and the CSV
//     and ZIP downloads, streamed): goal ≤ +30 MB over the process before the read.
// BENCH_BULK_PARTS (comma-separated; all by default) runs only some: `parse` (1), `jobs` (the
// 1,000-item job and the CSV upload of 3), `results` (the 50,000-item job of 2 and its reads).
import { startTestStack, type TestStack } from '@hallmark/e2e';
import { idempotencyKeyOf, orderBody, serviceQuery, startImageServer, waitForJob } from '@hallmark/e2e/bulk';
import { parse } from 'csv-parse/sync';
import { mkdtempSync, readFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { JsonRpcProvider } from 'ethers';
import { parseCsv } from '../services/bulk/src/domain/csv.js';
import { cpuTally, sized, SMOKE, verdict } from './lib.js';
import { machineReference } from './machine-reference.js';

const ROWS = sized(50_000, 100);
/** The small job whose peak RSS the big job's is compared with. */
const SMALL = sized(1_000, 20);
const n = (x: number) => x.toLocaleString('en');

const PARTS = new Set((process.env.BENCH_BULK_PARTS ?? 'parse,jobs,results').split(',').map((p) => p.trim()));

function csvOf(rows: number, imageBase = 'https://img.example.com'): Buffer {
  const lines = [
    'name,description,category,recipientEmail,recipientName,imageUrl,expiryDays,attribute_Color',
  ];
  for (let i = 1; i <= rows; i++) {
    lines.push(
      `Watch ${i},"Hand-made watch, No. ${i}",Watches,owner${i}@example.com,Owner ${i},${imageBase}/${i}.png,30,Blue`,
    );
  }
  return Buffer.from(lines.join('\n'));
}

async function benchCsvParse(): Promise<void> {
  const csv = csvOf(ROWS);
  const ours = async () => {
    let n = 0;
    for await (const row of parseCsv(csv, { hasZip: false, maxRows: ROWS })) if (row.ok) n++;
    if (n !== ROWS) throw new Error(`parsed ${n} valid rows`);
  };
  const baseline = async () => {
    const rows = parse(csv, { columns: true }) as unknown[];
    if (rows.length !== ROWS) throw new Error('baseline parse');
  };
  await ours();
  await baseline();
  const time = async (fn: () => Promise<void>) => {
    const t = performance.now();
    await fn();
    return performance.now() - t;
  };
  const oursMs: number[] = [];
  const baseMs: number[] = [];
  for (let i = 0; i < 3; i++) {
    oursMs.push(await time(ours));
    baseMs.push(await time(baseline));
  }
  const median = (a: number[]) => a.sort((x, y) => x - y)[1]!;
  const o = median(oursMs);
  const b = median(baseMs);
  console.log(`\nCSV of ${ROWS.toLocaleString()} rows (${(csv.length / 1e6).toFixed(1)} MB):`);
  console.log(`  parse + validate (streamed)   ${Math.round((ROWS / o) * 1000).toLocaleString()} rows/s`);
  console.log(`  csv-parse alone (baseline)    ${Math.round((ROWS / b) * 1000).toLocaleString()} rows/s`);
  console.log(`  ratio                         ${(b / o).toFixed(2)}× of the bare parser`);
}

/**
 * Samples a process's resident set (VmRSS) until stopped; answers the peak in MB. A process
 * gone while sampled (it crashed, e.g. out of memory) fails the measurement by name, instead
 * of the sampler dying on /proc/<pid>/status in a timer.
 */
export function rssSampler(pid: number, what = 'the bulk process') {
  let peak = 0;
  let gone = false;
  const read = () => {
    let status: string;
    try {
      status = readFileSync(`/proc/${pid}/status`, 'utf8');
    } catch {
      gone = true;
      return;
    }
    const m = /VmRSS:\s+(\d+) kB/.exec(status);
    if (m) peak = Math.max(peak, Number(m[1]) / 1024);
  };
  read();
  const timer = setInterval(read, 50);
  return {
    stop() {
      clearInterval(timer);
      read();
      if (gone) throw new Error(`${what} (pid ${pid}) exited while its memory was measured: see its log`);
      return peak;
    },
  };
}

/** Runs an order job to its end, polling the job's row (not the API) so only the job loads bulk. */
async function runOrderJob(stack: TestStack, auth: string, units: number, imageUrl: string) {
  const body = orderBody(units);
  for (const m of body.metadata as { imageUrl: string }[]) m.imageUrl = imageUrl;
  const t = performance.now();
  const res = await stack.call('POST', '/api/bulk-mint', {
    auth,
    body,
    headers: { 'idempotency-key': idempotencyKeyOf(body) },
  });
  if (res.status !== 201) throw new Error(`job refused: ${res.status} ${res.text.slice(0, 300)}`);
  const jobId: string = res.body.jobId;
  // A look that fails (the shared PostgreSQL server full of other work's connections: "too
  // many clients") is skipped, not fatal; only 40 in a row (10 s) end the bench.
  for (let failed = 0; ;) {
    const row = await serviceQuery<{ status: string }>(
      stack,
      'bulk',
      'SELECT status FROM jobs WHERE id = $1',
      [jobId],
    ).then(
      ([r]) => ((failed = 0), r),
      (err: unknown) => {
        if (++failed >= 40) throw err;
        return undefined;
      },
    );
    if (row && ['completed', 'failed', 'cancelled'].includes(row.status)) break;
    await new Promise((r) => setTimeout(r, 250));
  }
  const seconds = (performance.now() - t) / 1000;
  return { jobId, seconds };
}

/** Every process of the stack whose CPU a job costs: services, gateway, Restate, anvil, NATS. */
function stackProcesses(stack: TestStack): { name: string; pid: number }[] {
  const procs = [...stack.processes.values()].map((p) => ({ name: p.name, pid: p.pid }));
  if (stack.restate) procs.push({ name: 'restate', pid: stack.restate.pid });
  if (stack.anvil) procs.push({ name: 'anvil', pid: stack.anvil.pid });
  if (stack.nats.pid) procs.push({ name: 'nats', pid: stack.nats.pid });
  return procs;
}

async function gasPerCertificate(stack: TestStack, job: any): Promise<number> {
  const provider = new JsonRpcProvider(stack.anvil!.rpcUrl, undefined, { staticNetwork: true });
  const hashes = new Set<string>(
    (job.results.vouchers as { transactionHash: string }[]).map((v) => v.transactionHash),
  );
  let gas = 0n;
  for (const hash of hashes) gas += (await provider.getTransactionReceipt(hash))!.gasUsed;
  provider.destroy();
  return Number(gas) / job.results.vouchers.length;
}

interface JobPeaks {
  smallPeak: number;
  uploadPeak: number;
}

/** The 50,000-item job (time, gas, peak RSS) and the reads of its results, each measured apart. */
async function benchResults(
  stack: TestStack,
  auth: string,
  imagesUrl: string,
  freshBulk: () => Promise<number>,
  jobPeaks: JobPeaks | undefined,
): Promise<void> {
  const bulkPid = await freshBulk();
  const big = rssSampler(bulkPid);
  const cpu = await cpuTally(stackProcesses(stack), {
    url: stack.postgres.url,
    database: { prefix: stack.prefix },
  });
  // The machine's load while the job runs (other work shares the 2 cores): sampled each second.
  const loads = [loadavg()[0]!];
  const loadTimer = setInterval(() => loads.push(loadavg()[0]!), 1000);
  const { jobId, seconds } = await runOrderJob(stack, auth, ROWS, `${imagesUrl}/big.png`).finally(() =>
    clearInterval(loadTimer),
  );
  const cpuParts = await cpu.stop();
  const bigPeak = big.stop();
  // Printed before the reads below, so a failed read still leaves the job's numbers.
  console.log(
    `\n${ROWS.toLocaleString()}-item order job end to end (gateway → bulk → Restate → certificates → anvil):`,
  );
  console.log(
    `  time                          ${seconds.toFixed(1)} s (goal ≤ 30 s: ${verdict(seconds <= 30)})`,
  );
  console.log(`  throughput                    ${Math.round(ROWS / seconds).toLocaleString()} items/s`);
  console.log(
    `  load average (1 min)          ${(loads.reduce((a, b) => a + b, 0) / loads.length).toFixed(2)} ` +
      `mean while it ran (${Math.min(...loads).toFixed(2)}–${Math.max(...loads).toFixed(2)})`,
  );
  const perItem = cpuParts.map(([name, ms]) => `${name} ${(ms / ROWS).toFixed(3)}`).join(', ');
  const total = cpuParts.reduce((sum, [, ms]) => sum + ms, 0);
  console.log(`  CPU ms per item               ${(total / ROWS).toFixed(3)} in all: ${perItem}`);
  // Machines of this kind differ by 2× and more: the job is also read against fixed work.
  // In the bulk service's own database: whatever the reference leaves goes with the stack.
  const bulkDatabase = new URL(stack.postgres.url);
  bulkDatabase.pathname = `/${stack.prefix}_bulk`;
  const ref = await machineReference(bulkDatabase.toString(), ROWS);
  console.log(
    `  machine reference             Node ${(ref.nodeMs / 1000).toFixed(2)} s + PostgreSQL ` +
      `${(ref.postgresMs / 1000).toFixed(2)} s for ${n(ROWS)} items (machine-reference.ts): ` +
      `the job is ${((seconds * 1000) / (ref.nodeMs + ref.postgresMs)).toFixed(2)}× their sum`,
  );
  // Reading the results of 50,000 items is a cost of its own, shown apart: the status with
  // every voucher (streamed), then the CSV and ZIP downloads (streamed), each read whole.
  const beforeRead = rssSampler(bulkPid).stop();
  const read = rssSampler(bulkPid);
  const job = await waitForJob(stack, auth, jobId);
  const readPeak = read.stop();
  const download = async (type: string) => {
    const sampler = rssSampler(bulkPid);
    const res = await fetch(`${stack.gatewayUrl}/api/bulk-mint/${jobId}/download/${type}`, {
      headers: { authorization: `Bearer ${auth}` },
    });
    let bytes = 0;
    for await (const chunk of res.body!) bytes += (chunk as Uint8Array).length;
    if (res.status !== 200) throw new Error(`download ${type}: ${res.status}`);
    return { peak: sampler.stop(), bytes };
  };
  const csv = await download('csv');
  const zip = await download('zip');
  const firstPage = await stack.call('GET', `/api/bulk-mint/${jobId}`, { auth });
  if (job.status !== 'completed' || job.summary.successCount !== ROWS) {
    throw new Error(`job ended ${job.status}: ${JSON.stringify(job.summary)}`);
  }
  const gas = await gasPerCertificate(stack, job);
  console.log(`  gas per certificate           ${Math.round(gas).toLocaleString()} (mint transactions only)`);

  console.log(`\nbulk process peak RSS:`);
  console.log(`  ${`${n(ROWS)}-item job`.padEnd(30)}${bigPeak.toFixed(0)} MB`);
  if (jobPeaks) {
    const growth = Math.max(bigPeak, jobPeaks.uploadPeak) - jobPeaks.smallPeak;
    console.log(
      `  ${`growth ${n(SMALL)} → ${n(ROWS)}`.padEnd(30)}${growth.toFixed(0)} MB (goal ≤ 100 MB: ${verdict(growth <= 100)})`,
    );
  }
  // A read's peak can sit below the process before it (a collection in between): signed.
  const growth30 = (peak: number) => {
    const d = peak - beforeRead;
    return `${d < 0 ? '-' : '+'}${Math.abs(d).toFixed(0)} MB (goal ≤ +30 MB: ${verdict(d <= 30)})`;
  };
  console.log(`  before reading the results    ${beforeRead.toFixed(0)} MB`);
  console.log(
    `  ${`reading all ${n(ROWS)} results`.padEnd(30)}${readPeak.toFixed(0)} MB, ${growth30(readPeak)} ` +
      `(GET ?vouchers=all: ${job.results.vouchers.length.toLocaleString()} vouchers streamed page by page)`,
  );
  console.log(
    `  CSV download (streamed)       ${csv.peak.toFixed(0)} MB, ${growth30(csv.peak)}, ${(csv.bytes / 1e6).toFixed(1)} MB sent`,
  );
  console.log(
    `  ZIP download (streamed)       ${zip.peak.toFixed(0)} MB, ${growth30(zip.peak)}, ${(zip.bytes / 1e6).toFixed(1)} MB sent`,
  );
  console.log(
    `  status without asking         ${firstPage.body.job.results.vouchers.length} vouchers in the first page, ` +
      `nextCursor ${JSON.stringify(firstPage.body.job.results.nextCursor)}`,
  );
}

async function benchJobs(): Promise<void> {
  const images = await startImageServer(mkdtempSync(path.join(tmpdir(), 'hallmark-bench-images-')));
  const stack = await startTestStack({
    anvil: true,
    restate: true,
    logLevel: 'warn',
    env: {
      NODE_EXTRA_CA_CERTS: images.caFile,
      HALLMARK_OUTBOUND_ALLOW_HOSTS: '127.0.0.1',
      // BENCH_CPU_PROF=<dir>: every Node process of the stack writes a V8 CPU profile there
      // when it exits (open in Chrome DevTools › Performance, or speedscope).
      ...(process.env.BENCH_CPU_PROF
        ? { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${path.resolve(process.env.BENCH_CPU_PROF)}` }
        : {}),
    },
  });
  try {
    const auth = await stack.token();
    // Each measured phase starts with a fresh bulk process (a heap grown by one phase would
    // otherwise count in the next), warmed up by a small job; a smoke run measures nothing
    // and keeps the one it has.
    let jobPeaks: JobPeaks | undefined;
    const freshBulk = async () => {
      if (SMOKE) return stack.processes.get('bulk')!.pid;
      await stack.processes.get('bulk')!.stop();
      const proc = await stack.startService('bulk');
      await runOrderJob(stack, auth, 10, `${images.url}/warm.png`);
      return proc.pid;
    };
    if (PARTS.has('jobs')) {
      let bulkPid = await freshBulk();
      const idle = rssSampler(bulkPid).stop();
      const small = rssSampler(bulkPid);
      await runOrderJob(stack, auth, SMALL, `${images.url}/small.png`);
      const smallPeak = small.stop();

      bulkPid = await freshBulk();
      const upload = rssSampler(bulkPid);
      const form = new FormData();
      form.append('metadata', new Blob([csvOf(ROWS, images.url)], { type: 'text/csv' }), 'bench.csv');
      const res = await fetch(`${stack.gatewayUrl}/api/bulk-mint`, {
        method: 'POST',
        headers: { authorization: `Bearer ${auth}` },
        body: form,
      });
      const created = (await res.json()) as { data: { jobId: string; totalCount: number } };
      if (res.status !== 202 || created.data.totalCount !== ROWS)
        throw new Error(`CSV upload: ${res.status}`);
      await stack.call('POST', `/api/bulk-mint/${created.data.jobId}/cancel`, { auth });
      await waitForJob(stack, auth, created.data.jobId);
      const uploadPeak = upload.stop();
      console.log(`\nbulk process peak RSS (idle ${idle.toFixed(0)} MB):`);
      console.log(`  ${`${n(SMALL)}-item job`.padEnd(30)}${smallPeak.toFixed(0)} MB`);
      console.log(`  ${`${n(ROWS)}-row CSV upload`.padEnd(30)}${uploadPeak.toFixed(0)} MB`);
      jobPeaks = { smallPeak, uploadPeak };
    }
    if (PARTS.has('results')) await benchResults(stack, auth, images.url, freshBulk, jobPeaks);
  } finally {
    await stack.close();
    await images.close();
  }
}

export async function benchBulk(): Promise<void> {
  if (PARTS.has('parse')) await benchCsvParse();
  if (PARTS.has('jobs') || PARTS.has('results')) await benchJobs();
}
