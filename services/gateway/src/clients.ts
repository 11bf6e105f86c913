// gRPC clients of every downstream service, created once per gateway process.
import {
  createGrpcClient,
  createHealthProbe,
  type AsyncClient,
  type HealthProbe,
  type ServiceName,
  type StreamMethods,
} from '@hallmark/kit';
import { BulkServiceClient } from '@hallmark/proto/bulk/v1/bulk';
import { AllowlistServiceClient } from '@hallmark/proto/certificates/v1/allowlist';
import { CertificatesServiceClient } from '@hallmark/proto/certificates/v1/certificates';
import { CredentialsServiceClient } from '@hallmark/proto/certificates/v1/credentials';
import { CertificateVerificationServiceClient } from '@hallmark/proto/certificates/v1/verification';
import { CertificateVoucherServiceClient } from '@hallmark/proto/certificates/v1/vouchers';
import { GiftServiceClient } from '@hallmark/proto/certificates/v1/gifts';
import { OwnershipServiceClient, ResaleServiceClient } from '@hallmark/proto/certificates/v1/resale';
import { WarrantyServiceClient } from '@hallmark/proto/certificates/v1/warranty';
import { ChainSettingsServiceClient } from '@hallmark/proto/certificates/v1/chain_settings';
import { LostAndStolenServiceClient } from '@hallmark/proto/certificates/v1/stolen';
import { CertificateSearchServiceClient } from '@hallmark/proto/certificates/v1/search';
import { ServiceRecordsServiceClient } from '@hallmark/proto/certificates/v1/service_records';
import { MediaServiceClient } from '@hallmark/proto/certificates/v1/media';
import { TagServiceClient } from '@hallmark/proto/certificates/v1/tags';
import { KeysServiceClient } from '@hallmark/proto/keys/v1/keys';
import { PlatformServiceClient } from '@hallmark/proto/platform/v1/platform';
import { TemplatesServiceClient } from '@hallmark/proto/notify/v1/templates';
import { WebhooksServiceClient } from '@hallmark/proto/notify/v1/webhooks';
import { VouchersServiceClient } from '@hallmark/proto/vouchers/v1/vouchers';
import { publicCertificateReader, type PublicCertificateReader } from './cache/public-reads.js';
import type { Config } from './config.js';

export interface Clients {
  keys: AsyncClient<KeysServiceClient>;
  vouchers: AsyncClient<VouchersServiceClient>;
  webhooks: AsyncClient<WebhooksServiceClient>;
  /** WebhooksService's server streams (Listen): no deadline, ended by the caller's AbortSignal. */
  webhookStreams: StreamMethods<WebhooksServiceClient>;
  templates: AsyncClient<TemplatesServiceClient>;
  certificates: AsyncClient<CertificatesServiceClient>;
  /** Public certificate reads, concurrent ones batched into one call (cache/public-reads.ts). */
  publicCertificates: PublicCertificateReader;
  verification: AsyncClient<CertificateVerificationServiceClient>;
  warranty: AsyncClient<WarrantyServiceClient>;
  chainSettings: AsyncClient<ChainSettingsServiceClient>;
  stolen: AsyncClient<LostAndStolenServiceClient>;
  search: AsyncClient<CertificateSearchServiceClient>;
  serviceRecords: AsyncClient<ServiceRecordsServiceClient>;
  allowlist: AsyncClient<AllowlistServiceClient>;
  certificateVouchers: AsyncClient<CertificateVoucherServiceClient>;
  gifts: AsyncClient<GiftServiceClient>;
  /** Verifiable credentials, issuer DIDs and status lists (issue 32). */
  credentials: AsyncClient<CredentialsServiceClient>;
  /** NFC tags: the registry and the tap page (tap to verify). */
  tags: AsyncClient<TagServiceClient>;
  resale: AsyncClient<ResaleServiceClient>;
  ownership: AsyncClient<OwnershipServiceClient>;
  /** Archived images: GetMedia is a server stream (an issuer's logo is archived by keys). */
  media: {
    getMedia: StreamMethods<MediaServiceClient>['getMedia'];
  };
  bulk: AsyncClient<BulkServiceClient>;
  /** Bulk's server-streaming RPCs (results pages, downloads). */
  bulkStreams: StreamMethods<BulkServiceClient>;
  platform: AsyncClient<PlatformServiceClient>;
  health: Record<ServiceName, HealthProbe>;
  close(): void;
}

/**
 * Bulk calls that do long work inside the call: a synchronous order job mints on chain
 * before answering, and a CSV job carries up to 110 MB of upload to validate and store.
 */
const BULK_DEADLINES_MS = { createOrderJob: 60_000, createCsvJob: 60_000 };

/** The same methods (unary or streaming) with another default deadline on the named ones. */
function withDeadlines<C extends object>(methods: C, deadlines: Partial<Record<keyof C, number>>): C {
  return new Proxy(methods, {
    get(target, method) {
      const fn = Reflect.get(target, method) as (req: unknown, opts?: { deadlineMs?: number }) => unknown;
      const deadlineMs = deadlines[method as keyof C];
      if (deadlineMs === undefined) return fn;
      return (req: unknown, opts: { deadlineMs?: number } = {}) => fn(req, { deadlineMs, ...opts });
    },
  });
}

export function createClients(config: Config): Clients {
  const opts = { deadlineMs: config.HALLMARK_GRPC_DEADLINE_MS };
  const keys = createGrpcClient(KeysServiceClient, config.HALLMARK_KEYS_ADDR, opts);
  const vouchers = createGrpcClient(VouchersServiceClient, config.HALLMARK_VOUCHERS_ADDR, opts);
  const webhooks = createGrpcClient(WebhooksServiceClient, config.HALLMARK_NOTIFY_ADDR, opts);
  const templates = createGrpcClient(TemplatesServiceClient, config.HALLMARK_NOTIFY_ADDR, opts);
  const certificates = createGrpcClient(CertificatesServiceClient, config.HALLMARK_CERTIFICATES_ADDR, opts);
  const verification = createGrpcClient(
    CertificateVerificationServiceClient,
    config.HALLMARK_CERTIFICATES_ADDR,
    opts,
  );
  const warranty = createGrpcClient(WarrantyServiceClient, config.HALLMARK_CERTIFICATES_ADDR, opts);
  const chainSettings = createGrpcClient(ChainSettingsServiceClient, config.HALLMARK_CERTIFICATES_ADDR, opts);
  const stolen = createGrpcClient(LostAndStolenServiceClient, config.HALLMARK_CERTIFICATES_ADDR, opts);
  const search = createGrpcClient(CertificateSearchServiceClient, config.HALLMARK_CERTIFICATES_ADDR, opts);
  const serviceRecords = createGrpcClient(
    ServiceRecordsServiceClient,
    config.HALLMARK_CERTIFICATES_ADDR,
    opts,
  );
  const allowlist = createGrpcClient(AllowlistServiceClient, config.HALLMARK_CERTIFICATES_ADDR, opts);
  const certificateVouchers = createGrpcClient(
    CertificateVoucherServiceClient,
    config.HALLMARK_CERTIFICATES_ADDR,
    opts,
  );
  const gifts = createGrpcClient(GiftServiceClient, config.HALLMARK_CERTIFICATES_ADDR, opts);
  const credentials = createGrpcClient(CredentialsServiceClient, config.HALLMARK_CERTIFICATES_ADDR, opts);
  const tags = createGrpcClient(TagServiceClient, config.HALLMARK_CERTIFICATES_ADDR, opts);
  const resale = createGrpcClient(ResaleServiceClient, config.HALLMARK_CERTIFICATES_ADDR, opts);
  const ownership = createGrpcClient(OwnershipServiceClient, config.HALLMARK_CERTIFICATES_ADDR, opts);
  const media = createGrpcClient(MediaServiceClient, config.HALLMARK_CERTIFICATES_ADDR, opts);
  const mediaStreams = withDeadlines(media.streams, { getMedia: config.HALLMARK_GRPC_DEADLINE_MS });
  const bulk = createGrpcClient(BulkServiceClient, config.HALLMARK_BULK_ADDR, opts);
  const platform = createGrpcClient(PlatformServiceClient, config.HALLMARK_PLATFORM_ADDR, opts);
  const health: Record<ServiceName, HealthProbe> = {
    keys: createHealthProbe(config.HALLMARK_KEYS_ADDR),
    vouchers: createHealthProbe(config.HALLMARK_VOUCHERS_ADDR),
    certificates: createHealthProbe(config.HALLMARK_CERTIFICATES_ADDR),
    bulk: createHealthProbe(config.HALLMARK_BULK_ADDR),
    notify: createHealthProbe(config.HALLMARK_NOTIFY_ADDR),
    platform: createHealthProbe(config.HALLMARK_PLATFORM_ADDR),
  };
  return {
    keys: keys.api,
    vouchers: vouchers.api,
    webhooks: webhooks.api,
    // A listen session stays open until its listener goes.
    webhookStreams: withDeadlines(webhooks.streams, { listen: Infinity }),
    templates: templates.api,
    certificates: certificates.api,
    publicCertificates: publicCertificateReader(certificates.api),
    verification: verification.api,
    warranty: warranty.api,
    chainSettings: chainSettings.api,
    stolen: stolen.api,
    search: search.api,
    serviceRecords: serviceRecords.api,
    allowlist: allowlist.api,
    certificateVouchers: certificateVouchers.api,
    gifts: gifts.api,
    credentials: credentials.api,
    tags: tags.api,
    resale: resale.api,
    ownership: ownership.api,
    media: { getMedia: mediaStreams.getMedia },
    bulk: withDeadlines(bulk.api, BULK_DEADLINES_MS),
    bulkStreams: bulk.streams,
    platform: platform.api,
    health,
    close() {
      keys.close();
      vouchers.close();
      webhooks.close();
      templates.close();
      certificates.close();
      media.close();
      verification.close();
      warranty.close();
      chainSettings.close();
      stolen.close();
      search.close();
      serviceRecords.close();
      allowlist.close();
      certificateVouchers.close();
      gifts.close();
      credentials.close();
      tags.close();
      resale.close();
      ownership.close();
      bulk.close();
      platform.close();
      for (const probe of Object.values(health)) probe.close();
    },
  };
}
