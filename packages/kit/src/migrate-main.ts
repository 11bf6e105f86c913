// The migration step as the production image runs it (scripts/prod-tree.ts bundles it into
// every backend's tree as dist/migrate.js): creates the service's database when missing and
// applies kit's and the service's migrations, then exits. The Helm chart's
// pre-install/pre-upgrade Job runs one per backend:
//   node services/<svc>/dist/migrate.js
// The service is the tree's own (services/<svc>/dist/ → <svc>), its migrations beside dist/.
// Development and tests migrate at start; `node --import tsx scripts/migrate.ts` does the same
// from the sources. With HALLMARK_CONFIGURE_STREAMS=true (one container of the Job) it also
// brings the NATS streams to the release's values: the one owner of stream configuration.
import path from 'node:path';
import { connectBus } from './bus.js';
import { configureStreams } from './streams.js';
import { openDatabase } from './db.js';
import { createLogger } from './log.js';

const treeDir = path.resolve(path.dirname(process.argv[1]!), '..');
const svc = path.basename(treeDir);
const database = `${process.env.HALLMARK_DATABASE_PREFIX ?? 'hallmark'}_${svc}`;
const log = createLogger('migrate', process.env.LOG_LEVEL ?? 'info');
const pool = await openDatabase({
  serverUrl: process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
  database,
  migrationsDirs: [path.join(treeDir, 'migrations')],
  max: 1,
});
await pool.end();
log.info({ database }, 'migrated');

if (process.env.HALLMARK_CONFIGURE_STREAMS === 'true') {
  const bus = await connectBus(process.env.NATS_URL ?? 'nats://127.0.0.1:4222', 'hallmark-migrate', {
    streams: 'none',
  });
  const changed = await configureStreams(bus.nc);
  await bus.close();
  log.info({ changed }, 'NATS streams configured');
}
