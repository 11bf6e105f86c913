// Wiring only: config, database, bus, gRPC server, workers, shutdown.
import { bind, runServiceMain } from '@hallmark/kit';
import { VouchersServiceService, type VouchersServiceServer } from '@hallmark/proto/vouchers/v1/vouchers';
import path from 'node:path';
import { loadVouchersConfig } from './config.js';
import { RedemptionsStore } from './redemption-store.js';
import { createVouchersHandlers } from './rpc.js';
import { VouchersService } from './service.js';
import { VouchersStore } from './store.js';
import { ExpirySweeper } from './workers/expiry-sweeper.js';

const config = loadVouchersConfig();

await runServiceMain({
  name: 'vouchers',
  address: config.HALLMARK_VOUCHERS_ADDR,
  databaseServerUrl: config.DATABASE_URL,
  natsUrl: config.NATS_URL,
  databasePrefix: config.HALLMARK_DATABASE_PREFIX,
  poolSize: 20,
  logLevel: config.LOG_LEVEL,
  migrationsDirs: [path.join(import.meta.dirname, '..', 'migrations')],
  protoFiles: ['hallmark/vouchers/v1/vouchers.proto'],
  build: ({ pool, log }) => {
    const vouchers = new VouchersStore(pool);
    const service = new VouchersService(pool, vouchers, new RedemptionsStore(pool), {
      defaultCurrency: config.HALLMARK_VOUCHERS_DEFAULT_CURRENCY,
    });
    return {
      services: [bind<VouchersServiceServer>(VouchersServiceService, createVouchersHandlers(service))],
      workers: [new ExpirySweeper(service, log, config.HALLMARK_VOUCHERS_SWEEP_INTERVAL_MS)],
    };
  },
});
