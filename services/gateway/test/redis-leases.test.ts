// The Redis rate-limit store leases points in blocks (auth/redis-leases.ts): on the Redis
// running on 127.0.0.1:6379 (skipped when none runs), no window admits more than its limit
// across gateways, a single gateway is exact, most requests make no call, a refusal takes
// nothing, and small windows take no lease.
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { newId } from '@hallmark/kit';
import { Redis } from 'ioredis';
import { createConnection } from 'node:net';
import {
  leaseBlock,
  RedisLeases,
  TAKE,
  type LeasedWindow,
  type TakeScript,
} from '../src/auth/redis-leases.js';

const redisUp = await new Promise<boolean>((resolve) => {
  const socket = createConnection({ host: '127.0.0.1', port: 6379 });
  socket.once('connect', () => (socket.destroy(), resolve(true)));
  socket.once('error', () => resolve(false));
});

let redis: Redis;
const stores: RedisLeases[] = [];
beforeAll(() => {
  if (!redisUp) return;
  redis = new Redis('redis://127.0.0.1:6379');
  redis.defineCommand('hmTake', { lua: TAKE });
});
afterEach(() => {
  for (const s of stores.splice(0)) s.close();
});
afterAll(() => redis?.disconnect());

/** A gateway's store on the shared Redis, counting the calls it makes. */
function gateway(): { store: RedisLeases; calls: () => number } {
  let calls = 0;
  const take = (redis as unknown as { hmTake: TakeScript }).hmTake.bind(redis) as TakeScript;
  const store = new RedisLeases((...args) => (calls++, take(...args)));
  stores.push(store);
  return { store, calls: () => calls };
}

/** Windows of their own (a fresh prefix each test), so runs never share counters. */
const window = (name: string, points: number, durationSec: number): LeasedWindow => ({
  prefix: `hm_test_lease:${newId('event')}:${name}`,
  points,
  durationSec,
  block: leaseBlock(points),
});

const redisCount = async (w: LeasedWindow, subject: string) =>
  Number((await redis.get(`${w.prefix}:{${subject}}`)) ?? 0);

describe.each(redisUp ? [['Redis on 127.0.0.1:6379']] : [])('RedisLeases (%s)', () => {
  it('a single gateway admits exactly the limit, counting Remaining down by one, with a call per block, not per request', async () => {
    const { store, calls } = gateway();
    const burst = window('burst', 100, 60);
    const minute = window('min', 1000, 60);
    const remaining: number[] = [];
    let admitted = 0;
    for (let i = 0; i < 150; i++) {
      const a = await store.admit([minute, burst], 'key_a');
      if (a.refused < 0) {
        admitted++;
        remaining.push(a.states[0]!.remaining);
      } else {
        expect(a.refused).toBe(1);
        expect(a.states[1]!.remaining).toBe(0);
      }
    }
    expect(admitted).toBe(100);
    expect(remaining).toEqual(Array.from({ length: 100 }, (_, i) => 999 - i));
    // Blocks of 10 (a tenth of the burst): about one call in ten admitted requests, and one
    // per refusal (a refused request holds no lease to answer from).
    expect(calls()).toBeLessThanOrEqual(100 / 10 + 1 + 50);
    expect(calls()).toBeGreaterThanOrEqual(10);
  });

  it('gateways sharing Redis never admit more than the limit together, concurrently; early refusals stay within the leases others hold', async () => {
    const burst = window('burst', 100, 60);
    const gws = [gateway(), gateway(), gateway()];
    const results = await Promise.all(
      Array.from({ length: 300 }, (_, i) => gws[i % 3]!.store.admit([burst], 'key_b')),
    );
    const admitted = results.filter((r) => r.refused < 0).length;
    expect(admitted).toBeLessThanOrEqual(100);
    // What the other two gateways may hold unused: a block each at most.
    expect(admitted).toBeGreaterThanOrEqual(100 - 2 * burst.block);
    expect(await redisCount(burst, 'key_b')).toBeLessThanOrEqual(100);
  });

  it('a refused request takes nothing: Redis counts what was admitted and leased, not refusals', async () => {
    const { store } = gateway();
    const burst = window('burst', 20, 60); // block 2
    const hour = window('hour', 5000, 3600);
    for (let i = 0; i < 20; i++) expect((await store.admit([hour, burst], 'key_c')).refused).toBe(-1);
    const hourBefore = await redisCount(hour, 'key_c');
    for (let i = 0; i < 5; i++) {
      const refusal = await store.admit([hour, burst], 'key_c');
      expect(refusal.refused).toBe(1);
    }
    expect(await redisCount(burst, 'key_c')).toBe(20);
    expect(await redisCount(hour, 'key_c')).toBe(hourBefore);
  });

  it('a window under 20 points takes no lease: every request is one call, and the 6th of a 5-point window is refused', async () => {
    const { store, calls } = gateway();
    const minute = window('min', 5, 60);
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await store.admit([minute], 'key_d')).refused);
    expect(statuses).toEqual([-1, -1, -1, -1, -1, 0]);
    expect(calls()).toBe(6);
    expect(store.admitLocally([minute], 'key_d')).toBeUndefined();
  });

  it('a lease ends with its window: the next window starts from Redis, not from old leased points', async () => {
    const { store } = gateway();
    const burst = window('burst', 100, 1);
    expect((await store.admit([burst], 'key_e')).refused).toBe(-1);
    expect(store.admitLocally([burst], 'key_e')).toBeDefined();
    await new Promise((r) => setTimeout(r, 1100));
    expect(store.admitLocally([burst], 'key_e')).toBeUndefined();
    const next = await store.admit([burst], 'key_e');
    expect(next.refused).toBe(-1);
    expect(await redisCount(burst, 'key_e')).toBe(1 + burst.block);
    store.sweep();
    expect(store.size).toBe(1);
  });
});
