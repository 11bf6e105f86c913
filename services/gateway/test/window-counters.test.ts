// The in-memory rate-limit windows count as rate-limiter-flexible's memory limiter did:
// a window starts at its first point, counts every point until it ends, then starts over;
// ended windows leave memory at the next sweep.
import { afterEach, describe, expect, it } from '@jest/globals';
import { WindowCounters } from '../src/auth/window-counters.js';

let clock = 1_000_000;
let counters: WindowCounters;
afterEach(() => counters?.close());

describe('WindowCounters', () => {
  it('count every point of a window and tell the time left from its first point', () => {
    counters = new WindowCounters(() => clock);
    expect(counters.take('min', 'key_a', 60)).toEqual({ consumed: 1, msBeforeNext: 60_000 });
    clock += 15_000;
    expect(counters.take('min', 'key_a', 60)).toEqual({ consumed: 2, msBeforeNext: 45_000 });
    expect(counters.take('min', 'key_a', 60)).toEqual({ consumed: 3, msBeforeNext: 45_000 });
  });

  it('start a new window once the old one has ended, and keep subjects apart', () => {
    counters = new WindowCounters(() => clock);
    counters.take('burst', 'key_a', 1);
    counters.take('burst', 'key_a', 1);
    expect(counters.take('burst', 'key_b', 1)).toEqual({ consumed: 1, msBeforeNext: 1000 });
    clock += 1000;
    expect(counters.take('burst', 'key_a', 1)).toEqual({ consumed: 1, msBeforeNext: 1000 });
  });

  it('drop ended windows on a sweep and keep running ones', () => {
    counters = new WindowCounters(() => clock);
    counters.take('burst', 'key_a', 1);
    counters.take('hour', 'key_a', 3600);
    clock += 1000;
    counters.sweep();
    expect(counters.size).toBe(1);
    expect(counters.take('hour', 'key_a', 3600)).toEqual({ consumed: 2, msBeforeNext: 3_599_000 });
  });
});
