// `node --import tsx scripts/migrate.ts [svc …]`: creates each service's database
// (<HALLMARK_DATABASE_PREFIX>_<svc>) when missing and applies its migrations, then exits.
// What the Helm chart's pre-install/pre-upgrade hook Job runs with a role allowed to create
// databases, so the services run with HALLMARK_MIGRATE_AT_START=false and a role that needs
// neither CREATE DATABASE nor DDL. No names: every service. With HALLMARK_CONFIGURE_STREAMS=true
// it then brings the NATS streams to the configured values (kit configureStreams).
import {
  configureStreams,
  connectBus,
  createLogger,
  openDatabase,
  SERVICE_NAMES,
  type ServiceName,
} from '@hallmark/kit';
import path from 'node:path';

const log = createLogger('migrate', process.env.LOG_LEVEL ?? 'info');
const serverUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const prefix = process.env.HALLMARK_DATABASE_PREFIX ?? 'hallmark';
const names = process.argv.slice(2);
const unknown = names.filter((n) => !(SERVICE_NAMES as string[]).includes(n));
if (unknown.length) {
  console.error(`unknown service(s): ${unknown.join(', ')} (known: ${SERVICE_NAMES.join(', ')})`);
  process.exit(2);
}
for (const svc of (names.length ? names : SERVICE_NAMES) as ServiceName[]) {
  const database = `${prefix}_${svc}`;
  const pool = await openDatabase({
    serverUrl,
    database,
    migrationsDirs: [path.join(import.meta.dirname, '..', 'services', svc, 'migrations')],
    max: 1,
  });
  await pool.end();
  log.info({ database }, 'migrated');
}
if (process.env.HALLMARK_CONFIGURE_STREAMS === 'true') {
  const bus = await connectBus(process.env.NATS_URL ?? 'nats://127.0.0.1:4222', 'hallmark-migrate', {
    streams: 'none',
  });
  log.info({ changed: await configureStreams(bus.nc) }, 'NATS streams configured');
  await bus.close();
}
