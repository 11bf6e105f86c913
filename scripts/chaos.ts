// `pnpm chaos [--minutes N] [--seed S] [--replicas N] [--clustered]`: the system chaos soak (issue 21). Starts
// a stack of its own (N replicas of each backend, its own NATS), runs the mixed workload
// through the gateway while a seeded fault injector kills and restarts its parts, then checks
// the invariants over the whole history. Prints the fault timeline and a summary; exits 1
// when an invariant fails (naming the ids to look at). The seed replays the run's choices.
import { stopAll } from '@hallmark/devstack';
import { runChaos } from '@hallmark/e2e/chaos';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    minutes: { type: 'string' },
    seed: { type: 'string' },
    replicas: { type: 'string' },
    'own-postgres': { type: 'boolean', default: false },
    // Patroni + HAProxy, a 3-server NATS cluster, a 3-node Restate cluster, and their faults.
    clustered: { type: 'boolean', default: false },
    // With --clustered: an asynchronous standby (to show what a failover then loses).
    'no-sync': { type: 'boolean', default: false },
  },
});
const minutes = Number(values.minutes ?? 2);
const seed = Number(values.seed ?? Date.now() % 2 ** 31);
const replicas = Number(values.replicas ?? 2);
if (!(minutes > 0) || !Number.isInteger(seed) || !(Number.isInteger(replicas) && replicas >= 1)) {
  console.error(
    'usage: pnpm chaos [--minutes N] [--seed S] [--replicas N] [--own-postgres] [--clustered [--no-sync]]',
  );
  process.exit(2);
}
let code = 1;
try {
  const report = await runChaos({
    seconds: Math.round(minutes * 60),
    seed,
    replicas,
    ownPostgres: values['own-postgres']!,
    clustered: values.clustered!,
    synchronous: !values['no-sync'],
  });
  code = report.ok ? 0 : 1;
} catch (err) {
  console.error(`chaos: ${(err as Error).stack ?? err}`);
} finally {
  await stopAll();
}
process.exit(code);
