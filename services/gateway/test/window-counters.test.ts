// The in-memory rate-limit windows count as rate-limiter-flexible's memory limiter did:
// a window starts at its first point, counts every point until it ends, then starts over;
// ended windows leave memory at the next sweep. A request is admitted only if every window
// has room, and a refused request is counted in none.
import { afterEach, describe, expect, it } from '@jest/globals';
import { WindowCounters, type WindowSpec } from '../src/auth/window-counters.js';

let clock = 1_000_000;
let counters: WindowCounters;
afterEach(() => counters?.close());

const MIN: WindowSpec = { prefix: 'min', points: 5, durationSec: 60 };
const HOUR: WindowSpec = { prefix: 'hour', points: 100, durationSec: 3600 };
const BURST: WindowSpec = { prefix: 'burst', points: 2, durationSec: 1 };

describe('WindowCounters', () => {
  it('count every admitted request of a window and tell the time left from its first point', () => {
    counters = new WindowCounters(() => clock);
    expect(counters.admit([MIN], 'key_a')).toEqual({
      counts: [{ consumed: 1, msBeforeNext: 60_000 }],
      refused: -1,
    });
    clock += 15_000;
    expect(counters.admit([MIN], 'key_a').counts).toEqual([{ consumed: 2, msBeforeNext: 45_000 }]);
    expect(counters.admit([MIN], 'key_a').counts).toEqual([{ consumed: 3, msBeforeNext: 45_000 }]);
  });

  it('start a new window once the old one has ended, and keep subjects apart', () => {
    counters = new WindowCounters(() => clock);
    counters.admit([BURST], 'key_a');
    counters.admit([BURST], 'key_a');
    expect(counters.admit([BURST], 'key_b').counts).toEqual([{ consumed: 1, msBeforeNext: 1000 }]);
    clock += 1000;
    expect(counters.admit([BURST], 'key_a').counts).toEqual([{ consumed: 1, msBeforeNext: 1000 }]);
  });

  it('a refused request is counted in no window, and the refusal names the window that was full', () => {
    counters = new WindowCounters(() => clock);
    counters.admit([MIN, HOUR, BURST], 'key_a');
    counters.admit([MIN, HOUR, BURST], 'key_a');
    for (let i = 0; i < 3; i++) {
      const refusal = counters.admit([MIN, HOUR, BURST], 'key_a');
      expect(refusal.refused).toBe(2);
      expect(refusal.counts.map((c) => c.consumed)).toEqual([2, 2, 2]);
    }
    clock += 1000; // the burst window restarts; the minute still has its 3 left
    for (let i = 0; i < 2; i++) expect(counters.admit([MIN, HOUR, BURST], 'key_a').refused).toBe(-1);
    clock += 1000;
    expect(counters.admit([MIN, HOUR, BURST], 'key_a').counts.map((c) => c.consumed)).toEqual([5, 5, 1]);
    const full = counters.admit([MIN, HOUR, BURST], 'key_a');
    expect(full.refused).toBe(0);
    expect(full.counts[0]).toEqual({ consumed: 5, msBeforeNext: 58_000 });
  });

  it('drop ended windows on a sweep and keep running ones', () => {
    counters = new WindowCounters(() => clock);
    counters.admit([BURST, HOUR], 'key_a');
    clock += 1000;
    counters.sweep();
    expect(counters.size).toBe(1);
    expect(counters.admit([HOUR], 'key_a').counts).toEqual([{ consumed: 2, msBeforeNext: 3_599_000 }]);
  });
});
