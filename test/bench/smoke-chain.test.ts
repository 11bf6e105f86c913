// The chain and webhook benches still run end to end in smoke mode (test/bench/smoke.ts), and
// no bench `pnpm bench` knows is left out of the smoke runs.
import { describe, expect, it } from '@jest/globals';
import { BENCHES } from '../../bench/benches.js';
import { expectRan, runSmoke, SMOKE_GROUPS } from './smoke.js';

describe('bench smoke: chain and webhooks', () => {
  it('every bench of pnpm bench is in one smoke group', () => {
    expect(Object.values(SMOKE_GROUPS).flat().sort()).toEqual(Object.keys(BENCHES).sort());
  });

  it('bulk, contract-gas and notify run to their end and exit 0', async () => {
    expectRan(await runSmoke(SMOKE_GROUPS['chain and webhooks']), SMOKE_GROUPS['chain and webhooks']);
  }, 600_000);
});
