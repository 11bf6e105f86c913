// Wiring only: config, database, bus, gRPC server, shutdown. The notify service's RPCs
// arrive with its issue; until then it runs its database, outbox relay and health.
import { runServiceMain } from '@hallmark/kit';
import path from 'node:path';
import { loadNotifyConfig } from './config.js';

const config = loadNotifyConfig();

await runServiceMain({
  name: 'notify',
  address: config.HALLMARK_NOTIFY_ADDR,
  databaseServerUrl: config.DATABASE_URL,
  natsUrl: config.NATS_URL,
  databasePrefix: config.HALLMARK_DATABASE_PREFIX,
  logLevel: config.LOG_LEVEL,
  migrationsDirs: [path.join(import.meta.dirname, '..', 'migrations')],
  protoFiles: [],
  build: () => ({ services: [] }),
});
