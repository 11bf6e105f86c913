// Wiring only: the kit's runner (database, bus, outbox relay, gRPC server, shutdown), the
// service's parts (bootstrap.ts: chain, stores, mint worker and its passes, chain indexer,
// provisioning consumer), the gifts slice (its workflow endpoint and starter) and the gRPC
// services bound to their handlers.
import { bind, gauge, runServiceMain } from '@hallmark/kit';
import {
  CertificatesServiceService,
  type CertificatesServiceServer,
} from '@hallmark/proto/certificates/v1/certificates';
import {
  CertificateVerificationServiceService,
  type CertificateVerificationServiceServer,
} from '@hallmark/proto/certificates/v1/verification';
import { WarrantyServiceService, type WarrantyServiceServer } from '@hallmark/proto/certificates/v1/warranty';
import {
  AllowlistServiceService,
  type AllowlistServiceServer,
} from '@hallmark/proto/certificates/v1/allowlist';
import {
  CertificateVoucherServiceService,
  type CertificateVoucherServiceServer,
} from '@hallmark/proto/certificates/v1/vouchers';
import {
  ChainSettingsServiceService,
  type ChainSettingsServiceServer,
} from '@hallmark/proto/certificates/v1/chain_settings';
import {
  ServiceRecordsServiceService,
  type ServiceRecordsServiceServer,
} from '@hallmark/proto/certificates/v1/service_records';
import {
  LostAndStolenServiceService,
  type LostAndStolenServiceServer,
} from '@hallmark/proto/certificates/v1/stolen';
import path from 'node:path';
import { buildParts } from './bootstrap.js';
import { loadCertificatesConfig } from './config.js';
import { createCertificatesHandlers } from './rpc.js';
import { createVerificationHandlers, verificationOf } from './verify/rpc.js';
import { DigitalLinkService } from './digital-link/service.js';
import { DigitalLinkStore } from './digital-link/store.js';
import { verifySlice } from './verify/index.js';
import { createWarrantyHandlers } from './warranty/rpc.js';
import { createAllowlistHandlers } from './allowlist/rpc.js';
import { createChainSettingsHandlers } from './chain-settings/rpc.js';
import { createCertificateVoucherHandlers } from './certificate-vouchers/rpc.js';
import { giftsSlice } from './gifts/index.js';
import { mediaSlice } from './media/index.js';
import { ownershipSlice } from './ownership/index.js';
import { issuerLookup } from './issuers/rpc.js';
import { createServiceRecordHandlers } from './service-records/rpc.js';
import { createStolenHandlers } from './stolen/rpc.js';
import { searchSlice } from './search/index.js';
import { tagsSlice } from './tags/index.js';

const config = loadCertificatesConfig();

await runServiceMain({
  name: 'certificates',
  address: config.HALLMARK_CERTIFICATES_ADDR,
  databaseServerUrl: config.DATABASE_URL,
  natsUrl: config.NATS_URL,
  databasePrefix: config.HALLMARK_DATABASE_PREFIX,
  logLevel: config.LOG_LEVEL,
  // Each mint signer's worker holds a connection for its advisory lock.
  poolSize: 10 + config.HALLMARK_RELAYER_SIGNERS,
  migrationsDirs: [path.join(import.meta.dirname, '..', 'migrations')],
  protoFiles: [
    'hallmark/certificates/v1/certificates.proto',
    'hallmark/certificates/v1/verification.proto',
    'hallmark/certificates/v1/warranty.proto',
    'hallmark/certificates/v1/allowlist.proto',
    'hallmark/certificates/v1/vouchers.proto',
    'hallmark/certificates/v1/gifts.proto',
    'hallmark/certificates/v1/resale.proto',
    'hallmark/certificates/v1/media.proto',
    'hallmark/certificates/v1/credentials.proto',
    'hallmark/certificates/v1/chain_settings.proto',
    'hallmark/certificates/v1/stolen.proto',
    'hallmark/certificates/v1/tags.proto',
    'hallmark/certificates/v1/service_records.proto',
    'hallmark/certificates/v1/search.proto',
  ],
  build: async (deps) => {
    const { pool, log } = deps;
    const {
      chain,
      store,
      wallets,
      transfers,
      vouchers,
      claims,
      allowlistStore,
      credentials,
      worker,
      workers,
    } = await buildParts(config, deps);
    // The public reads' issuer line, from the read model bootstrap.ts's consumer keeps.
    const issuerOf = issuerLookup(pool);
    const gifts =
      wallets && transfers && config.HALLMARK_ENCRYPTION_KEYS
        ? giftsSlice({
            config,
            pool,
            log,
            certificates: store,
            wallets,
            transfers,
            encryptionKeys: config.HALLMARK_ENCRYPTION_KEYS,
            issuerOf,
          })
        : null;
    const media = mediaSlice(config, pool, log);
    // Certificate search (issue 34) and the backfill of the recipient e-mail index it reads.
    const search = searchSlice({ pool, log, encryptionKeys: config.HALLMARK_ENCRYPTION_KEYS });
    // Proof-of-ownership links and export (docs/resale.md): the owner's custodial wallet.
    const ownership = wallets
      ? ownershipSlice({
          pool,
          certificates: store,
          wallets,
          transfers: transfers ?? null,
          chain: chain ?? null,
        })
      : null;
    const verify = verifySlice({
      config,
      pool,
      log,
      store,
      chain,
      images: { media: media.service, store: media.store, publicUrl: config.HALLMARK_PUBLIC_URL },
    });
    const verifyDeps = {
      store,
      verifier: verify.verifier,
      issuerOf,
    };
    // Tap to verify: a genuine tap's page shows the certificate's verification.
    const tags = config.HALLMARK_ENCRYPTION_KEYS
      ? tagsSlice({
          pool,
          log,
          encryptionKeys: config.HALLMARK_ENCRYPTION_KEYS,
          publicUrl: config.HALLMARK_PUBLIC_URL,
          verify: (id) => verificationOf(verifyDeps, id, false),
        })
      : null;
    // The alert on funds compares each signer's balance with this (deploy/helm/hallmark/files/
    // alerts.yaml, matched by signer): one series per mint signer, each pays its own gas.
    if (chain && config.HALLMARK_RELAYER_BALANCE_FLOOR_WEI > 0n) {
      const floor = gauge(
        'hallmark_relayer_balance_floor_wei',
        'HALLMARK_RELAYER_BALANCE_FLOOR_WEI: the balance to alert under',
        ['signer'],
      );
      for (const s of chain.signers)
        floor.set({ signer: s.address }, Number(config.HALLMARK_RELAYER_BALANCE_FLOOR_WEI));
    }
    return {
      services: [
        bind<CertificatesServiceServer>(
          CertificatesServiceService,
          createCertificatesHandlers({
            store,
            provider: chain?.provider ?? null,
            relayer:
              chain && config.HALLMARK_RELAYER_BALANCE_FLOOR_WEI > 0n
                ? {
                    addresses: chain.signers.map((s) => s.address),
                    floorWei: config.HALLMARK_RELAYER_BALANCE_FLOOR_WEI,
                  }
                : undefined,
            onBatchRecorded: () => worker?.wake(),
            wallets,
            transfers,
            issuerOf,
          }),
        ),
        bind<CertificateVerificationServiceServer>(
          CertificateVerificationServiceService,
          createVerificationHandlers({
            ...verifyDeps,
            digitalLink: new DigitalLinkService(new DigitalLinkStore(pool)),
          }),
        ),
        bind<CertificateVoucherServiceServer>(
          CertificateVoucherServiceService,
          createCertificateVoucherHandlers({
            vouchers,
            certificates: store,
            claims,
            issuerOf,
          }),
        ),
        bind<WarrantyServiceServer>(WarrantyServiceService, createWarrantyHandlers({ certificates: store })),
        bind<LostAndStolenServiceServer>(
          LostAndStolenServiceService,
          createStolenHandlers({
            pool,
            certificates: store,
            wallets: wallets ?? null,
            transfers: transfers ?? null,
          }),
        ),
        bind<ServiceRecordsServiceServer>(
          ServiceRecordsServiceService,
          createServiceRecordHandlers({
            pool,
            certificates: store,
            wallets: wallets ?? null,
            media: media.service,
          }),
        ),
        bind<AllowlistServiceServer>(
          AllowlistServiceService,
          createAllowlistHandlers({
            store: allowlistStore,
            contract: () => chain?.contract ?? null,
            onRequested: () => worker?.wake(),
          }),
        ),
        bind<ChainSettingsServiceServer>(
          ChainSettingsServiceService,
          createChainSettingsHandlers({
            pool,
            // no chain: the configured default (nothing is minted anyway)
            deploymentDefault: () => chain?.transferEvents ?? config.HALLMARK_CHAIN_TRANSFER_EVENTS,
          }),
        ),
        ...(gifts?.bindings ?? []),
        ...(ownership ? [ownership.binding] : []),
        media.binding,
        search.binding,
        credentials.binding,
        ...(tags ? [tags.binding] : []),
      ],
      workers: [
        ...workers,
        ...(gifts?.workers ?? []),
        ...media.workers,
        ...verify.workers,
        ...search.workers,
      ],
    };
  },
});
