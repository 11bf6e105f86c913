// Orders test files longest first, by the durations recorded in test/timings.json (refreshed by
// hand from a full run: `pnpm test:timings`). Two workers finish together when the long files
// start first; jest's own order needs a cache a clean CI checkout does not have (it falls back
// to file size, which can leave a 90-second file for last). A file not in the record (a new
// one) is guessed: 60 s when it starts a whole stack, else 10 s.
import Sequencer from '@jest/test-sequencer';
import { readFileSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const STACK_SECONDS = 60;
const IN_PROCESS_SECONDS = 10;

function guess(file) {
  try {
    return /startTestStack\(|startStack\(|runChaos\(/.test(readFileSync(file, 'utf8'))
      ? STACK_SECONDS
      : IN_PROCESS_SECONDS;
  } catch {
    return IN_PROCESS_SECONDS;
  }
}

function recorded() {
  try {
    return JSON.parse(readFileSync(path.join(import.meta.dirname, 'timings.json'), 'utf8'));
  } catch {
    return {};
  }
}

export default class LongestFirst extends Sequencer {
  sort(tests) {
    const seconds = recorded();
    const weights = new Map(
      tests.map((t) => [
        t.path,
        seconds[path.relative(root, t.path).split(path.sep).join('/')] ?? guess(t.path),
      ]),
    );
    return [...tests].sort(
      (a, b) => weights.get(b.path) - weights.get(a.path) || a.path.localeCompare(b.path),
    );
  }
}
