// `pnpm test`: makes sure PostgreSQL and NATS are there (the running ones when they
// answer, else local ones under .hallmark-test/), then runs every jest suite against them.
// Extra arguments go to jest (e.g. `pnpm test services/keys`).
import { debianBinary, ensureNats, ensurePostgres, stopAll } from '@hallmark/devstack';
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { buildStackBundles } from './stack-bundles.js';
import { buildConsole } from '../packages/console/build.js';

const root = path.resolve(import.meta.dirname, '..');
const dataDir = path.join(root, '.hallmark-test');
// The browser tests drive Debian's Chromium (no browser download is possible here).
await debianBinary('chromium', 'chromium');
const postgres = await ensurePostgres({ dataDir, url: process.env.DATABASE_URL });
const nats = await ensureNats({ dataDir, url: process.env.NATS_URL });
console.log(`tests: PostgreSQL ${postgres.embedded ? 'embedded' : postgres.url}, NATS ${nats.url}`);

// Stacks start services from in-place bundles (scripts/stack-bundles.ts): the same code with
// far less CPU per process start. HALLMARK_STACK_COMPILED=0 runs them from the sources.
const compiled = process.env.HALLMARK_STACK_COMPILED !== '0';
if (compiled) console.log(`tests: service bundles built in ${await buildStackBundles()} ms`);
// The console's build (packages/console/dist), which the gateway serves at /console.
const consoleBuilt = await buildConsole();
console.log(`tests: console built (first load ${consoleBuilt.firstLoadJsGzipBytes} B of JS gzipped)`);

mkdirSync(dataDir, { recursive: true });
const resultFile = path.join(dataDir, 'jest-results.json');
rmSync(resultFile, { force: true });
const code = await new Promise<number>((resolve) => {
  const child = spawn(
    process.execPath,
    [
      '--experimental-vm-modules',
      '--no-warnings=ExperimentalWarning',
      path.join(root, 'node_modules', 'jest', 'bin', 'jest.js'),
      '--json',
      `--outputFile=${resultFile}`,
      // Two test files at a time even on 2 cores (jest's default there is one, in band): the
      // suites spend most of their time waiting on stacks, blocks and polls, not on CPU.
      ...(process.argv.some((a) => a.startsWith('--maxWorkers') || a === '-i' || a === '--runInBand')
        ? []
        : ['--maxWorkers=2']),
      ...process.argv.slice(2),
    ],
    {
      cwd: root,
      stdio: 'inherit',
      env: {
        ...process.env,
        DATABASE_URL: postgres.url,
        NATS_URL: nats.url,
        HALLMARK_STACK_COMPILED: compiled ? '1' : '0',
      },
    },
  );
  child.on('exit', (c) => resolve(c ?? 1));
});

try {
  const r = JSON.parse(readFileSync(resultFile, 'utf8')) as {
    numPassedTests: number;
    numFailedTests: number;
    numPendingTests: number;
  };
  // The plain closing line CI reads.
  console.log(`\njest: ${r.numPassedTests} passed, ${r.numFailedTests} failed, ${r.numPendingTests} skipped`);
} catch {
  console.log('\njest: no results written');
}
await nats.stop();
await postgres.stop();
await stopAll();
process.exit(code);
