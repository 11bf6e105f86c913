// Runs the shared security suite (test/e2e/src/security-suite.ts) against every
// authenticated operation the real gateway publishes: new routes are covered for free.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startTestStack, type TestStack } from '../src/index.js';
import { callWithKey, createKey, mistype, unknownWellFormedKey } from '../src/keys.js';
import { describeSecuritySuite } from '../src/security-suite.js';

let stack: TestStack;

beforeAll(async () => {
  // The suite sends thousands of refused credentials from one address on purpose, to check
  // each 401; the throttle that would answer 429 past 50 of them has its own test
  // (security/input-and-auth.test.ts).
  stack = await startTestStack({
    env: { HALLMARK_AUTH_FAILURES_PER_ADDRESS: '1000000', HALLMARK_AUTH_FAILURES_PER_KEY_PREFIX: '1000000' },
  });
}, 120_000);

afterAll(async () => {
  await stack?.close();
}, 60_000);

describeSecuritySuite(() => stack, {
  mustInclude: [
    'POST /api/v1/api-keys',
    'GET /api/v1/api-keys/{key_id}',
    'POST /api/v1/api-keys/{key_id}/rotate',
    'POST /api/enterprise/api-keys',
    'GET /api/v1/vouchers',
  ],
});

describe('cheap refusal of bad keys', () => {
  it('a malformed or mistyped key is refused without any lookup: still 401 while the keys service is down', async () => {
    const session = await stack.token();
    const k = await createKey(stack, session);
    await stack.processes.get('keys')!.stop();
    try {
      for (const bad of [mistype(k.key), k.key.slice(0, -1), 'pk_test_short']) {
        const res = await callWithKey(stack, 'GET', '/api/v1/api-keys', bad, 'header');
        expect({ status: res.status, code: res.body?.error?.code }).toEqual({
          status: 401,
          code: 'invalid_api_key',
        });
      }
      // A well-formed key does need the lookup: with keys down that cannot be answered 401.
      const unknown = await callWithKey(stack, 'GET', '/api/v1/api-keys', unknownWellFormedKey(), 'header');
      expect(unknown.status).toBeGreaterThanOrEqual(500);
    } finally {
      await stack.startService('keys');
    }
  }, 60_000);
});
