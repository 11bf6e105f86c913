// Wiring only: config, database, bus, gRPC server, workers, shutdown.
import { bind, runServiceMain } from '@hallmark/kit';
import { KeysServiceService, type KeysServiceServer } from '@hallmark/proto/keys/v1/keys';
import path from 'node:path';
import { loadKeysConfig } from './config.js';
import { createKeysHandlers } from './rpc.js';
import { KeysStore } from './store.js';

const config = loadKeysConfig();

await runServiceMain({
  name: 'keys',
  address: config.HALLMARK_KEYS_ADDR,
  databaseServerUrl: config.DATABASE_URL,
  natsUrl: config.NATS_URL,
  logLevel: config.LOG_LEVEL,
  migrationsDirs: [path.join(import.meta.dirname, '..', 'migrations')],
  protoFiles: ['hallmark/keys/v1/keys.proto'],
  build: ({ pool }) => ({
    services: [bind<KeysServiceServer>(KeysServiceService, createKeysHandlers(new KeysStore(pool)))],
  }),
});
