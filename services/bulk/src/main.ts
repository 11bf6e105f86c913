// Wiring only: config, database, bus, gRPC server, shutdown. The bulk service's RPCs
// arrive with its issue; until then it runs its database, outbox relay and health.
import { runServiceMain } from '@hallmark/kit';
import path from 'node:path';
import { loadBulkConfig } from './config.js';

const config = loadBulkConfig();

await runServiceMain({
  name: 'bulk',
  address: config.HALLMARK_BULK_ADDR,
  databaseServerUrl: config.DATABASE_URL,
  natsUrl: config.NATS_URL,
  databasePrefix: config.HALLMARK_DATABASE_PREFIX,
  logLevel: config.LOG_LEVEL,
  migrationsDirs: [path.join(import.meta.dirname, '..', 'migrations')],
  protoFiles: [],
  build: () => ({ services: [] }),
});
