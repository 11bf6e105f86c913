// Shared bench helpers: autocannon runs with a fixed shape, and ratio printing. Every
// bench measures a baseline in the same process and prints ratios, never absolute goals
// alone, so results compare across machines.
import autocannon from 'autocannon';

export interface LoadResult {
  name: string;
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
}

export async function load(
  name: string,
  url: string,
  opts: {
    headers?: Record<string, string>;
    method?: 'GET' | 'POST';
    body?: string;
    connections?: number;
    seconds?: number;
  } = {},
): Promise<LoadResult> {
  const r = await autocannon({
    url,
    method: opts.method ?? 'GET',
    headers: opts.headers,
    body: opts.body,
    connections: opts.connections ?? 32,
    duration: opts.seconds ?? Number(process.env.BENCH_SECONDS ?? 5),
  });
  return { name, rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, non2xx: r.non2xx };
}

export function table(rows: LoadResult[], baseline: LoadResult): void {
  console.log(
    `\n${'case'.padEnd(44)} ${'req/s'.padStart(9)} ${'p50 ms'.padStart(7)} ${'p99 ms'.padStart(7)} ${'non2xx'.padStart(7)} ${'× baseline'.padStart(11)}`,
  );
  for (const r of rows) {
    console.log(
      `${r.name.padEnd(44)} ${r.rps.toFixed(0).padStart(9)} ${r.p50.toFixed(1).padStart(7)} ${r.p99.toFixed(1).padStart(7)} ${String(r.non2xx).padStart(7)} ${(r.rps / baseline.rps).toFixed(3).padStart(11)}`,
    );
  }
}

export function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}
