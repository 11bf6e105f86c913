// The scale bench (N signers, two jobs on a 2 s-block anvil) still runs end to end in smoke
// mode (test/bench/smoke.ts).
import { describe, it } from '@jest/globals';
import { expectRan, runSmoke, SMOKE_GROUPS } from './smoke.js';

describe('bench smoke: scale', () => {
  it('scale runs to its end and exits 0', async () => {
    expectRan(await runSmoke(SMOKE_GROUPS.scale), SMOKE_GROUPS.scale);
  }, 600_000);
});
