// The gifts slice assembled (with resale, a gift of kind `resale`): store, notifier (notify's messaging and templates over gRPC),
// service, the gift workflow's Restate endpoint and the workflow starter. main.ts wires it.
import { bind, createGrpcClient, type Logger, type Pool } from '@hallmark/kit';
import { restateEndpoint } from '@hallmark/kit/restate';
import { GiftServiceService, type GiftServiceServer } from '@hallmark/proto/certificates/v1/gifts';
import { ResaleServiceService, type ResaleServiceServer } from '@hallmark/proto/certificates/v1/resale';
import { MessagingServiceClient } from '@hallmark/proto/notify/v1/messaging';
import { TemplatesServiceClient } from '@hallmark/proto/notify/v1/templates';
import type { Config } from '../config.js';
import type { PublicReadDeps } from '../rpc.js';
import type { CertificatesStore } from '../store.js';
import type { TransferService } from '../transfers/service.js';
import type { WalletStore } from '../wallets/store.js';
import { GiftNotifier } from './notifier.js';
import { createGiftHandlers } from './rpc.js';
import { GiftService } from './service.js';
import { GiftStore } from './store.js';
import { createResaleHandlers } from './resale-rpc.js';
import { ResaleService } from './resale-service.js';
import { ResaleStore } from './resale-store.js';
import { ClaimTokens } from './tokens.js';
import { giftStarter } from './workers/starter.js';
import { giftWorkflow } from './workflows/gift.js';
import { giftWorkflowIngress } from './workflows/ingress.js';
import { GiftSteps } from './workflows/steps.js';

export interface GiftsDeps {
  config: Config;
  pool: Pool;
  log: Logger;
  certificates: CertificatesStore;
  wallets: WalletStore;
  transfers: TransferService;
  encryptionKeys: string;
  /** The claim page's issuer line (the issuers slice's read model). */
  issuerOf: PublicReadDeps['issuerOf'];
}

export function giftsSlice(d: GiftsDeps) {
  const { config, pool, log } = d;
  const messaging = createGrpcClient(MessagingServiceClient, config.HALLMARK_NOTIFY_ADDR, {
    deadlineMs: 20_000,
  });
  const templates = createGrpcClient(TemplatesServiceClient, config.HALLMARK_NOTIFY_ADDR);
  const gifts = new GiftStore(pool, d.encryptionKeys);
  const notifier = new GiftNotifier({ messaging: messaging.api, templates: templates.api });
  const ingress = giftWorkflowIngress(config.HALLMARK_RESTATE_INGRESS_URL);
  const service = new GiftService({
    gifts,
    certificates: d.certificates,
    wallets: d.wallets,
    notifier,
    tokens: new ClaimTokens(d.encryptionKeys),
    ingress,
    ttlHours: config.HALLMARK_GIFT_TTL_HOURS,
    publicUrl: config.HALLMARK_PUBLIC_URL,
    log,
  });
  const steps = new GiftSteps({
    gifts,
    service,
    transfers: d.transfers,
    certificates: d.certificates,
    notifier,
    maxAttempts: config.HALLMARK_GIFT_MAX_TRANSFER_ATTEMPTS,
    log,
  });
  const endpoint = restateEndpoint([giftWorkflow(steps)], {
    port: config.HALLMARK_CERTIFICATES_RESTATE_PORT,
    host: config.HALLMARK_CERTIFICATES_RESTATE_HOST,
    url: config.HALLMARK_CERTIFICATES_RESTATE_URL,
    release: config.HALLMARK_RELEASE,
    adminUrl: config.HALLMARK_CERTIFICATES_RESTATE_REGISTER ? config.HALLMARK_RESTATE_ADMIN_URL : null,
    force: config.HALLMARK_RESTATE_FORCE_REGISTER,
    log,
    onStop: () => {
      messaging.close();
      templates.close();
    },
  });
  // Resale: gifts of kind `resale` (docs/resale.md), made by the same service and workflow.
  const resale = new ResaleService({
    gifts: service,
    giftStore: gifts,
    resales: new ResaleStore(pool),
    ingress,
    log,
  });
  return {
    bindings: [
      bind<GiftServiceServer>(GiftServiceService, createGiftHandlers(service, { issuerOf: d.issuerOf })),
      bind<ResaleServiceServer>(ResaleServiceService, createResaleHandlers(resale, d.certificates)),
    ],
    workers: [endpoint, giftStarter(gifts, service, pool, log, config.HALLMARK_GIFT_STARTER_INTERVAL_MS)],
  };
}
