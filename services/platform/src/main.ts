// Wiring only: config, database, bus, gRPC server (install, orders, fulfilment RPCs), the
// Restate endpoint of the paid-order workflow (registered at start), the order submitter,
// the bulk job-event consumer, shutdown.
import { bind, createGrpcClient, Encryptor, runServiceMain } from '@hallmark/kit';
import { restateEndpoint } from '@hallmark/kit/restate';
import { BulkServiceClient } from '@hallmark/proto/bulk/v1/bulk';
import { CertificateVoucherServiceClient } from '@hallmark/proto/certificates/v1/vouchers';
import { KeysServiceClient } from '@hallmark/proto/keys/v1/keys';
import { PlatformServiceService, type PlatformServiceServer } from '@hallmark/proto/platform/v1/platform';
import path from 'node:path';
import { AdminApi } from './admin-api/client.js';
import { loadPlatformConfig } from './config.js';
import { fulfilmentHandlers } from './fulfilment/rpc.js';
import { FulfilmentService } from './fulfilment/service.js';
import { FulfilmentStore } from './fulfilment/store.js';
import { parseShop } from './install/domain/oauth.js';
import { installHandlers } from './install/rpc.js';
import { InstallService } from './install/service.js';
import { InstallStore } from './install/store.js';
import { Cancellations } from './orders/cancellation.js';
import { OrderSteps } from './orders/order-steps.js';
import { ordersHandlers } from './orders/rpc.js';
import { OrdersService } from './orders/service.js';
import { OrdersStore } from './orders/store.js';
import { jobEventsConsumer } from './orders/workers/job-events.js';
import { orderSubmitter } from './orders/workers/submitter.js';
import { orderWorkflowIngress } from './orders/workflows/ingress.js';
import { orderWorkflow } from './orders/workflows/order-paid.js';

const config = loadPlatformConfig();

await runServiceMain({
  name: 'platform',
  address: config.HALLMARK_PLATFORM_ADDR,
  databaseServerUrl: config.DATABASE_URL,
  natsUrl: config.NATS_URL,
  databasePrefix: config.HALLMARK_DATABASE_PREFIX,
  logLevel: config.LOG_LEVEL,
  migrationsDirs: [path.join(import.meta.dirname, '..', 'migrations')],
  protoFiles: ['hallmark/platform/v1/platform.proto'],
  build: ({ pool, bus, log }) => {
    const enc = new Encryptor(config.HALLMARK_ENCRYPTION_KEYS);
    const admin = new AdminApi({
      adminUrlTemplate: config.HALLMARK_PLATFORM_ADMIN_URL,
      apiKey: config.HALLMARK_PLATFORM_API_KEY,
      apiSecret: config.HALLMARK_PLATFORM_API_SECRET,
      apiVersion: config.HALLMARK_PLATFORM_API_VERSION,
      timeoutMs: config.HALLMARK_PLATFORM_HTTP_TIMEOUT_MS,
    });
    const keys = createGrpcClient(KeysServiceClient, config.HALLMARK_KEYS_ADDR);
    const bulk = createGrpcClient(BulkServiceClient, config.HALLMARK_BULK_ADDR);
    const vouchers = createGrpcClient(CertificateVoucherServiceClient, config.HALLMARK_CERTIFICATES_ADDR);
    const installs = new InstallStore(pool, enc);
    const orders = new OrdersStore(pool, enc);
    const ingress = orderWorkflowIngress(config.HALLMARK_RESTATE_INGRESS_URL);
    const install = new InstallService(
      installs,
      admin,
      keys.api,
      {
        publicUrl: config.HALLMARK_PUBLIC_URL.replace(/\/$/, ''),
        appUrl: config.HALLMARK_PLATFORM_APP_URL,
        apiKey: config.HALLMARK_PLATFORM_API_KEY,
        apiSecret: config.HALLMARK_PLATFORM_API_SECRET,
        shopSuffix: config.HALLMARK_PLATFORM_SHOP_DOMAIN_SUFFIX,
        stateTtlS: config.HALLMARK_PLATFORM_STATE_TTL_S,
        setupTokenTtlS: config.HALLMARK_PLATFORM_SETUP_TOKEN_TTL_S,
        callbackMaxAgeS: config.HALLMARK_PLATFORM_CALLBACK_MAX_AGE_S,
      },
      log,
    );
    const fulfilment = new FulfilmentService(
      new FulfilmentStore(pool),
      installs,
      admin,
      {
        explorerTxUrl: config.HALLMARK_CHAIN_EXPLORER_TX_URL,
        company: config.HALLMARK_FULFILMENT_COMPANY,
        backoffBaseMs: config.HALLMARK_FULFILMENT_BACKOFF_MS,
      },
      log,
    );
    const cancellations = new Cancellations(orders, installs, vouchers.api, log);
    const ordersSvc = new OrdersService(
      orders,
      installs,
      ingress,
      keys.api,
      cancellations,
      config.HALLMARK_PLATFORM_API_SECRET,
      log,
      config.HALLMARK_PLATFORM_SHOP_DOMAIN_SUFFIX,
      (shop) => install.stillInstalled(shop),
    );
    const steps = new OrderSteps(orders, installs, admin, bulk.api, keys.api, fulfilment, cancellations, log);
    const shopOf = (s: string) => parseShop(s, config.HALLMARK_PLATFORM_SHOP_DOMAIN_SUFFIX);
    return {
      services: [
        bind<PlatformServiceServer>(PlatformServiceService, {
          ...installHandlers(install),
          ...ordersHandlers(ordersSvc),
          ...fulfilmentHandlers(fulfilment, (shop, ref) => orders.find(shop, ref), shopOf),
        }),
      ],
      workers: [
        restateEndpoint(
          [
            orderWorkflow(steps, {
              attempts: config.HALLMARK_PLATFORM_PRODUCT_LOOKUP_ATTEMPTS,
              waitMs: config.HALLMARK_PLATFORM_PRODUCT_WAIT_MS,
              waits: config.HALLMARK_PLATFORM_PRODUCT_WAITS,
            }),
          ],
          {
            port: config.HALLMARK_PLATFORM_RESTATE_PORT,
            host: config.HALLMARK_PLATFORM_RESTATE_HOST,
            url: config.HALLMARK_PLATFORM_RESTATE_URL,
            release: config.HALLMARK_RELEASE,
            force: config.HALLMARK_RESTATE_FORCE_REGISTER,
            adminUrl: config.HALLMARK_PLATFORM_RESTATE_REGISTER ? config.HALLMARK_RESTATE_ADMIN_URL : null,
            log,
            onStop: () => {
              keys.close();
              bulk.close();
              vouchers.close();
            },
          },
        ),
        orderSubmitter(
          orders,
          ordersSvc,
          cancellations,
          installs,
          pool,
          log,
          config.HALLMARK_PLATFORM_SUBMIT_INTERVAL_MS,
        ),
        jobEventsConsumer(bus, pool, orders, ingress, log),
      ],
    };
  },
});
