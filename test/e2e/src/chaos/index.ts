// The chaos soak (issue 21): `pnpm chaos` and test/e2e/test/chaos.test.ts.
export { runChaos, type ChaosOptions, type ChaosReport } from './run.js';
export {
  acknowledgedRedemptionsKept,
  checkInvariants,
  type Facts,
  type InvariantResult,
} from './invariants.js';
export { emptyHistory, type History } from './history.js';
export { mulberry32, fork } from './prng.js';
export { clusteredTestsEnabled } from './clustered-tests.js';
