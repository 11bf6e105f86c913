// `pnpm test:timings`: records each test file's duration from the last full `pnpm test`
// (.hallmark-test/jest-results.json) into test/timings.json, which test/sequencer.js reads to
// start the longest files first. Run by hand after a full run; commit the result.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const results = JSON.parse(readFileSync(path.join(root, '.hallmark-test', 'jest-results.json'), 'utf8')) as {
  testResults: { name: string; startTime: number; endTime: number }[];
};
const seconds: Record<string, number> = {};
for (const r of results.testResults)
  seconds[path.relative(root, r.name).split(path.sep).join('/')] = Math.round(
    (r.endTime - r.startTime) / 1000,
  );
const sorted = Object.fromEntries(Object.entries(seconds).sort(([a], [b]) => a.localeCompare(b)));
writeFileSync(path.join(root, 'test', 'timings.json'), JSON.stringify(sorted, null, 2) + '\n');
const total = Object.values(seconds).reduce((a, b) => a + b, 0);
console.log(`${Object.keys(seconds).length} files, ${total} s of test time recorded in test/timings.json`);
