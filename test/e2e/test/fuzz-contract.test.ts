// Every operation fuzzed (issue 13): a seeded fast-check run of a few hundred generated bad
// requests across all of /openapi.json (src/property-fuzz.ts). No 5xx, no hang, every 4xx in
// its surface's error format with a request_id, and no refused create changes a list.
// Then every operation gets text in other scripts and lone surrogates as keys and values in
// its path, query and body (src/odd-text-sweep.ts), and afterwards the stack's own process
// table shows every process still running with the pid it started with (security issue 27).
// `pnpm fuzz --runs 5000` runs the same properties longer and prints failures as curl.
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import type { ProcessRow } from '@hallmark/devstack';
import { newId } from '@hallmark/kit';
import { startTestStack, type TestStack } from '../src/index.js';
import { runOddTextSweep } from '../src/odd-text-sweep.js';
import { runFuzz } from '../src/property-fuzz.js';

let stack: TestStack;
let started: ProcessRow[];

beforeAll(async () => {
  stack = await startTestStack();
  started = stack.processTable();
}, 120_000);

afterAll(async () => {
  await stack?.close();
}, 60_000);

const RUNS = Number(process.env.FUZZ_RUNS ?? 300);
const SEED = Number(process.env.FUZZ_SEED ?? 20251125);

it(`${RUNS} generated bad requests over every operation: no 5xx, no hang, errors in format, no partial writes (seed ${SEED})`, async () => {
  const result = await runFuzz(
    { baseUrl: stack.gatewayUrl, session: () => stack.token({ ent: newId('enterprise'), role: 'owner' }) },
    { runs: RUNS, seed: SEED },
  );
  expect(result.failures.map((f) => `${f.problem}\n  ${f.curl}`)).toEqual([]);
  // Most generated requests are refused (4xx); the run reached the services too.
  expect(Object.keys(result.statuses).some((s) => s.startsWith('4'))).toBe(true);
}, 600_000);

it('text in other scripts and lone surrogates as keys and values in every path, query and body: no 5xx, errors in format', async () => {
  const result = await runOddTextSweep({
    baseUrl: stack.gatewayUrl,
    session: () => stack.token({ ent: newId('enterprise'), role: 'owner' }),
  });
  expect(result.failures.map((f) => `${f.problem}\n  ${f.curl}`)).toEqual([]);
  expect(result.cases).toBeGreaterThan(500);
}, 600_000);

it('after both runs every process still runs with the pid it started with (no request made one exit)', () => {
  expect(started.length).toBe(7);
  expect(stack.processTable()).toEqual(started.map((p) => ({ ...p, exited: null })));
});
