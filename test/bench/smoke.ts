// Runs benches in smoke mode (`pnpm bench --smoke <name…>`: small counts, no goals judged) as a
// child process with the suite's PostgreSQL, NATS and service bundles, so a bench that no longer
// runs (an event its contract refuses, a route that moved, a helper that changed) fails CI.
// The benches are split in groups, one test file each, so jest's two workers share them.
import { spawn } from 'node:child_process';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '..', '..');

export const SMOKE_GROUPS = {
  services: ['gateway', 'vouchers', 'public-read'],
  'chain and webhooks': ['bulk', 'contract-gas', 'notify'],
  // A stack of two jobs on a 2 s-block anvil: its own file, so jest's workers balance it.
  scale: ['scale'],
} as const;

export interface SmokeRun {
  code: number | null;
  output: string;
  /** Benches that printed their closing `### bench <name> done` line. */
  finished: string[];
}

export function runSmoke(names: readonly string[]): Promise<SmokeRun> {
  const child = spawn(
    process.execPath,
    ['--experimental-async-context-frame', '--import', 'tsx', 'bench/run.ts', '--smoke', ...names],
    {
      cwd: ROOT,
      // Small pools: a bench's stack runs beside the suite's other stacks on one PostgreSQL
      // (100 connections), and smoke mode measures nothing.
      env: { HALLMARK_DB_POOL_MAX: '8', ...process.env, LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  child.stdout.on('data', (c: Buffer) => (output += c.toString('utf8')));
  child.stderr.on('data', (c: Buffer) => (output += c.toString('utf8')));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) =>
      resolve({
        code,
        output,
        finished: [...output.matchAll(/^### bench (\S+) done in /gm)].map((m) => m[1]!),
      }),
    );
  });
}

/**
 * Fails, with the run's output, unless every named bench printed its closing line, the run
 * exited 0 (a bench that threw, lost deliveries or answered unintended non-2xx exits 1) and
 * it ran in smoke mode.
 */
export function expectRan(run: SmokeRun, names: readonly string[]): void {
  const ran = [...run.finished].sort().join(', ');
  const wanted = [...names].sort().join(', ');
  // The benches judged no goal: the run was the smoke one (small counts), not a measurement.
  const smoke = run.output.includes('not judged (smoke)');
  if (run.code !== 0 || ran !== wanted || !smoke)
    throw new Error(
      `benches finished: [${ran}] of [${wanted}], exit ${run.code}, smoke mode ${smoke}; ` +
        `output's tail:\n${run.output.slice(-8000)}`,
    );
}
