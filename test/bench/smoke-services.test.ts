// The benches that start a stack of the services still run end to end in smoke mode
// (test/bench/smoke.ts).
import { describe, it } from '@jest/globals';
import { expectRan, runSmoke, SMOKE_GROUPS } from './smoke.js';

describe('bench smoke: the services benches', () => {
  it('gateway, vouchers and public-read run to their end and exit 0', async () => {
    expectRan(await runSmoke(SMOKE_GROUPS.services), SMOKE_GROUPS.services);
  }, 600_000);
});
