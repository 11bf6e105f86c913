// Rate limits (spec › Limits) through the real gateway, under concurrency: per key by type
// (burst, per minute), per endpoint group, counted per key (or per enterprise for
// sessions), with the X-RateLimit-* headers and 429 rate_limit_exceeded + retry_after.
// Uses the Redis-backed limiter when Redis runs (REDIS_URL, else 127.0.0.1:6379), as
// replicas in production do; the in-memory one otherwise (or with E2E_NO_REDIS=1). The
// stated-limit test runs on both stores: a second gateway without Redis beside the stack's.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { portInUse } from '@hallmark/devstack';
import { newId } from '@hallmark/kit';
import { startExtraGateway, type ExtraGateway } from '../src/gateway2.js';
import { startTestStack, type Reply, type TestStack } from '../src/index.js';
import {
  burstWindows,
  callWithKey,
  createKey,
  errorOf,
  secondsFromNow,
  sleep,
  type IssuedKey,
} from '../src/keys.js';

let stack: TestStack;
let memoryGateway: ExtraGateway | undefined;
let owner: string;
const redisUrl = process.env.NO_REDIS
  ? undefined
  : (process.env.REDIS_URL ?? ((await portInUse(6379)) ? 'redis://127.0.0.1:6379' : undefined));
const limiter = redisUrl ? 'Redis' : 'in-memory';

beforeAll(async () => {
  stack = await startTestStack(redisUrl ? { env: { REDIS_URL: redisUrl } } : {});
  if (redisUrl)
    memoryGateway = await startExtraGateway(stack, { name: 'gateway-memory', unset: ['REDIS_URL'] });
  owner = await stack.token();
}, 180_000);

afterAll(async () => {
  await memoryGateway?.stop();
  await stack?.close();
}, 60_000);

const statusCounts = (replies: Reply[]) =>
  replies.reduce<Record<number, number>>((acc, r) => ({ ...acc, [r.status]: (acc[r.status] ?? 0) + 1 }), {});

/** Fires `n` requests at once; answers in the order sent. */
const parallel = (n: number, send: () => Promise<Reply>) => Promise.all(Array.from({ length: n }, send));

/** The verification cache is warmed by one request, then its burst window is let pass. */
async function warmed(key: IssuedKey): Promise<IssuedKey> {
  expect((await callWithKey(stack, 'GET', '/api/v1/api-keys', key.key)).status).toBe(200);
  await sleep(1100);
  return key;
}

function expect429(res: Reply) {
  const e = errorOf(res, '/api/v1/');
  expect(e.styleProblems).toEqual([]);
  expect({ status: res.status, type: e.type, code: e.code }).toEqual({
    status: 429,
    type: 'rate_limit_error',
    code: 'rate_limit_exceeded',
  });
  expect(Number.isInteger(e.fields.retry_after)).toBe(true);
  expect(e.fields.retry_after as number).toBeGreaterThanOrEqual(1);
  expect(res.headers.get('retry-after')).toBe(String(e.fields.retry_after));
  // The headers describe the window that refused: it has nothing left.
  expect(res.headers.get('x-ratelimit-remaining')).toBe('0');
}

describe(`per-key limits (${limiter} limiter)`, () => {
  it.each([
    ['a production key (default burst 100)', { type: 'production' as const }, 100],
    [
      'a restricted key with custom rateLimit 1000/min (burst 100)',
      { type: 'restricted' as const, rateLimit: 1000, expiresAt: secondsFromNow(3600) },
      100,
    ],
    ['a test key (burst 20)', { type: 'test' as const }, 20],
  ])(
    '%s: of 2× its burst in parallel, at most the burst pass; the rest are 429 with retry_after saying it was the burst guard',
    async (_l, body, burst) => {
      const key = await warmed(await createKey(stack, owner, body));
      const started = performance.now();
      const replies = await parallel(2 * burst, () => callWithKey(stack, 'GET', '/api/v1/api-keys', key.key));
      const tookMs = performance.now() - started;
      const counts = statusCounts(replies);
      expect(Object.keys(counts).filter((s) => s !== '200' && s !== '429')).toEqual([]);
      // All answered within 1 s means all counted in one burst window: exactly the burst
      // passes. Slower (a loaded machine) spans more windows, each allowing the burst.
      const windows = burstWindows(tookMs);
      const passed = counts[200] ?? 0;
      const verdict = `${passed} of ${2 * burst} passed in ${Math.round(tookMs)} ms`;
      if (windows === 1) expect(verdict).toBe(`${burst} of ${2 * burst} passed in ${Math.round(tookMs)} ms`);
      else
        expect(passed <= burst * windows ? 'within the burst per window' : verdict).toBe(
          'within the burst per window',
        );
      for (const r of replies.filter((x) => x.status === 429)) {
        expect429(r);
        // The headers report the window that refused: the burst guard.
        expect(r.headers.get('x-ratelimit-limit')).toBe(String(burst));
        expect(errorOf(r, '/api/v1/').fields.limit_window).toBe('burst');
      }
      const limited = replies.find((r) => r.status === 429);
      if (body.type !== 'test' || !limited) return; // (the refill is checked once, on the smallest burst)
      // The burst window refills after retry_after.
      const retryAfter = errorOf(limited, '/api/v1/').fields.retry_after as number;
      await sleep(retryAfter * 1000 + 50);
      expect((await callWithKey(stack, 'GET', '/api/v1/api-keys', key.key)).status).toBe(200);
    },
  );

  // The stores counted a refusal everywhere, and a 5/min key had a 1/s burst guard: 1 of 12.
  it.each([
    [limiter, () => stack.gatewayUrl],
    ...(redisUrl ? [['in-memory (a second gateway)', () => memoryGateway!.url] as const] : []),
  ])(
    'a 5/min key gets exactly 5 of 12 back-to-back requests, Remaining 4…0, each 429 reporting the minute window that refused it (%s store)',
    async (_store, gatewayUrl) => {
      const key = await createKey(stack, owner, { rateLimit: 5 });
      const replies: Reply[] = [];
      for (let i = 0; i < 12; i++)
        replies.push(
          await callWithKey(stack, 'GET', '/api/v1/api-keys', key.key, 'bearer', {
            gatewayUrl: gatewayUrl(),
          }),
        );
      expect(replies.map((r) => r.status)).toEqual([...Array(5).fill(200), ...Array(7).fill(429)]);
      expect(replies.slice(0, 5).map((r) => r.headers.get('x-ratelimit-remaining'))).toEqual([
        '4',
        '3',
        '2',
        '1',
        '0',
      ]);
      const firstReset = Number(replies[0]!.headers.get('x-ratelimit-reset'));
      for (const r of replies.slice(5)) {
        expect429(r);
        const e = errorOf(r, '/api/v1/');
        expect(e.fields.limit_window).toBe('minute');
        expect(r.headers.get('x-ratelimit-limit')).toBe('5');
        // The minute window's own reset, and the wait until it.
        expect(Math.abs(Number(r.headers.get('x-ratelimit-reset')) - firstReset)).toBeLessThanOrEqual(1);
        expect(e.fields.retry_after as number).toBeGreaterThan(50);
        expect(e.fields.retry_after as number).toBeLessThanOrEqual(60);
      }
    },
  );

  it('X-RateLimit-Limit/Remaining/Reset are on every response, and Remaining counts down', async () => {
    const key = await createKey(stack, owner);
    const seen: { limit: number; remaining: number; reset: number }[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await callWithKey(stack, 'GET', '/api/v1/api-keys', key.key);
      expect(res.status).toBe(200);
      seen.push({
        limit: Number(res.headers.get('x-ratelimit-limit')),
        remaining: Number(res.headers.get('x-ratelimit-remaining')),
        reset: Number(res.headers.get('x-ratelimit-reset')),
      });
    }
    expect(seen.map((s) => s.limit)).toEqual([1000, 1000, 1000, 1000, 1000]);
    expect(seen.map((s) => s.remaining)).toEqual([999, 998, 997, 996, 995]);
    const nowSec = Date.now() / 1000;
    for (const s of seen) {
      expect(s.reset).toBeGreaterThanOrEqual(Math.floor(nowSec) - 1);
      expect(s.reset).toBeLessThanOrEqual(Math.ceil(nowSec) + 61); // the minute window
    }
    // On failed requests too, and on session requests (counted per enterprise).
    const notFound = await callWithKey(
      stack,
      'GET',
      '/api/v1/api-keys/apikey_000000000000000000000000',
      key.key,
    );
    expect(notFound.status).toBe(404);
    expect(Number(notFound.headers.get('x-ratelimit-remaining'))).toBe(994);
    const session = await stack.call('GET', '/api/v1/api-keys', { auth: owner });
    for (const h of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'])
      expect(session.headers.get(h)).toMatch(/^\d+$/);
  });
});

describe(`endpoint-group limits, counted per key (or per enterprise for sessions) (${limiter} limiter)`, () => {
  // A per-minute rate high enough that the key's own burst never binds first.
  const roomy = { permissions: ['transactions.*'], rateLimit: 20_000 };

  it.each([
    ['voucher list/read', 'GET', '/api/v1/vouchers?limit=0', 100],
    ['voucher create/update', 'POST', '/api/v1/vouchers', 50],
    ['voucher redeem', 'POST', '/api/v1/vouchers/redeem', 200],
  ])('%s: %s %s allows %i per minute per key', async (_label, method, path, limit) => {
    const key = await createKey(stack, owner, roomy);
    // Invalid requests (400) still count, and cost the services nothing.
    const replies = await parallel(limit + 10, () =>
      callWithKey(stack, method, path, key.key, 'bearer', method === 'POST' ? { body: {} } : {}),
    );
    expect(statusCounts(replies)).toEqual({ 400: limit, 429: 10 });
    for (const r of replies.filter((x) => x.status === 429)) {
      expect429(r);
      expect(r.headers.get('x-ratelimit-limit')).toBe(String(limit));
      expect(errorOf(r, path).fields.retry_after as number).toBeGreaterThan(1); // a minute window
    }
    // Another key of the same enterprise, from the same address, has its own count.
    const other = await createKey(stack, owner, roomy);
    const res = await callWithKey(
      stack,
      method,
      path,
      other.key,
      'bearer',
      method === 'POST' ? { body: {} } : {},
    );
    expect(res.status).toBe(400);
    expect(res.headers.get('x-ratelimit-limit')).toBe(String(limit));
    expect(res.headers.get('x-ratelimit-remaining')).toBe(String(limit - 1));
  });

  it('sessions are counted per enterprise: another user of it is limited too, another enterprise is not', async () => {
    const ent = newId('enterprise');
    const alice = await stack.token({ ent, sub: 'alice' });
    const bob = await stack.token({ ent, sub: 'bob' });
    const outsider = await stack.token();
    const replies = await parallel(50, () =>
      stack.call('POST', '/api/v1/vouchers', { auth: alice, body: {} }),
    );
    expect(statusCounts(replies)).toEqual({ 400: 50 });
    expect429(await stack.call('POST', '/api/v1/vouchers', { auth: bob, body: {} }));
    expect((await stack.call('POST', '/api/v1/vouchers', { auth: outsider, body: {} })).status).toBe(400);
  });
});
