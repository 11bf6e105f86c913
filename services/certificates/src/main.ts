// Wiring only: config, database, bus, chain, gRPC server, mint worker (mints, transfers, claim
// repair and allowlist writes: every transaction of the relayer's key), burn indexer, the gifts
// slice (its workflow endpoint and starter), shutdown.
import { bind, IntervalWorker, runServiceMain, type Logger, type Pool } from '@hallmark/kit';
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
import path from 'node:path';
import { Relayer } from './chain/relayer.js';
import { connectChain, type Chain } from './chain/setup.js';
import { feePolicyOf, loadCertificatesConfig } from './config.js';
import { MintWorker, withPasses } from './minter.js';
import { createCertificatesHandlers } from './rpc.js';
import { CertificatesStore } from './store.js';
import { createVerificationHandlers } from './verify/rpc.js';
import { Verifier } from './verify/verifier.js';
import { createWarrantyHandlers } from './warranty/rpc.js';
import { BurnIndexer } from './indexer/burn-indexer.js';

import { giftsSlice } from './gifts/index.js';
import { AllowlistProcessor } from './allowlist/processor.js';
import { ProvisioningConsumer } from './allowlist/provisioning.js';
import { createAllowlistHandlers } from './allowlist/rpc.js';
import { AllowlistStore } from './allowlist/store.js';
import { TransferService } from './transfers/service.js';
import { WalletStore } from './wallets/store.js';
import { VoucherClaims } from './vouchers/claim.js';
import { createVoucherHandlers } from './vouchers/rpc.js';
import { VoucherStore } from './vouchers/store.js';

const config = loadCertificatesConfig();

await runServiceMain({
  name: 'certificates',
  address: config.HALLMARK_CERTIFICATES_ADDR,
  databaseServerUrl: config.DATABASE_URL,
  natsUrl: config.NATS_URL,
  databasePrefix: config.HALLMARK_DATABASE_PREFIX,
  logLevel: config.LOG_LEVEL,
  migrationsDirs: [path.join(import.meta.dirname, '..', 'migrations')],
  protoFiles: [
    'hallmark/certificates/v1/certificates.proto',
    'hallmark/certificates/v1/verification.proto',
    'hallmark/certificates/v1/warranty.proto',
    'hallmark/certificates/v1/allowlist.proto',
    'hallmark/certificates/v1/vouchers.proto',
    'hallmark/certificates/v1/gifts.proto',
  ],
  build: async ({ pool, bus, log }) => {
    let chain: Chain | null = null;
    if (config.HALLMARK_CHAIN_RPC_URL && config.HALLMARK_RELAYER_KEY) {
      chain = await connectChain(
        {
          rpcUrl: config.HALLMARK_CHAIN_RPC_URL,
          relayerKey: config.HALLMARK_RELAYER_KEY,
          chainId: config.HALLMARK_CHAIN_ID,
          contractAddress: config.HALLMARK_CONTRACT_ADDRESS,
          baseURI: new URL('/api/certificate/metadata/', config.HALLMARK_PUBLIC_URL).toString(),
          transferEvents: config.HALLMARK_CHAIN_TRANSFER_EVENTS,
        },
        pool,
        log,
      );
      log.info(
        {
          contract: chain.contract.address,
          relayer: chain.signer.address,
          transferEvents: chain.transferEvents,
        },
        'chain connected',
      );
    } else {
      log.warn('no HALLMARK_CHAIN_RPC_URL: running without a chain (MintBatch unavailable)');
    }
    const store = new CertificatesStore(pool, () => chain?.contract.address ?? null);
    const relayer = chain
      ? new Relayer({
          pool,
          provider: chain.provider,
          signer: chain.signer,
          contract: chain.contract,
          chainId: chain.chainId,
          confirmations: config.HALLMARK_CHAIN_CONFIRMATIONS,
          store,
          log,
          receiptTimeoutMs: config.HALLMARK_CHAIN_RECEIPT_TIMEOUT_MS,
          feePolicy: feePolicyOf(config),
        })
      : null;
    const wallets = config.HALLMARK_ENCRYPTION_KEYS
      ? new WalletStore(pool, config.HALLMARK_ENCRYPTION_KEYS)
      : undefined;
    const transfers = wallets
      ? new TransferService({
          pool,
          store,
          wallets,
          chain: () =>
            chain && relayer
              ? {
                  relayer,
                  provider: chain.provider,
                  signer: chain.signer,
                  chainId: chain.chainId,
                  confirmations: config.HALLMARK_CHAIN_CONFIRMATIONS,
                }
              : null,
          log,
          onRecorded: () => worker?.wake(),
          receiptTimeoutMs: config.HALLMARK_CHAIN_RECEIPT_TIMEOUT_MS,
        })
      : undefined;
    const vouchers = new VoucherStore(pool, {
      publicUrl: config.HALLMARK_PUBLIC_URL,
      encryptionKeys: config.HALLMARK_ENCRYPTION_KEYS,
    });
    const claims =
      wallets && transfers
        ? new VoucherClaims({
            store: vouchers,
            wallets,
            transfers,
            maxAttempts: config.HALLMARK_CLAIM_MAX_ATTEMPTS,
            log,
          })
        : undefined;
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
          })
        : null;
    const allowlistStore = new AllowlistStore(pool);
    const allowlist = chain && relayer ? allowlistProcessorOf(chain, relayer, allowlistStore, log) : null;
    // The mint worker's pass also sends transfers, repairs certificate-voucher claims whose
    // transfer failed and writes the allowlist: one replica, one signer, one nonce sequence.
    const passes: Array<() => Promise<number>> = [
      ...(transfers && claims ? [() => transfers.processOpen(), () => claims.repairPass()] : []),
      ...(allowlist ? [async () => countDone(await allowlist.runOnce())] : []),
    ];
    const worker = relayer
      ? new MintWorker(pool, withPasses(relayer, passes), log, config.HALLMARK_CERTIFICATES_MINT_INTERVAL_MS)
      : null;
    return {
      services: [
        bind<CertificatesServiceServer>(
          CertificatesServiceService,
          createCertificatesHandlers({
            store,
            provider: chain?.provider ?? null,
            onBatchRecorded: () => worker?.wake(),
            wallets,
            transfers,
          }),
        ),
        bind<CertificateVerificationServiceServer>(
          CertificateVerificationServiceService,
          createVerificationHandlers({
            store,
            verifier: new Verifier({ pool, store, chain: () => chain }),
          }),
        ),
        bind<CertificateVoucherServiceServer>(
          CertificateVoucherServiceService,
          createVoucherHandlers({
            vouchers,
            certificates: store,
            claims,
          }),
        ),
        ...(gifts ? [gifts.binding] : []),
        bind<WarrantyServiceServer>(WarrantyServiceService, createWarrantyHandlers({ certificates: store })),
        bind<AllowlistServiceServer>(
          AllowlistServiceService,
          createAllowlistHandlers({
            store: allowlistStore,
            contract: () => chain?.contract ?? null,
            onRequested: () => worker?.wake(),
          }),
        ),
      ],
      workers: [
        ...(worker ? [worker] : []),
        ...(gifts?.workers ?? []),
        ...(chain ? [burnIndexerWorker(chain, pool, log)] : []),
        // Allowlist on user provisioning (user.created → custodial wallet → allowlist request).
        ...(wallets
          ? [
              new ProvisioningConsumer({
                bus,
                pool,
                log,
                wallets,
                allowlist: allowlistStore,
                onRequested: () => worker?.wake(),
              }),
            ]
          : []),
      ],
    };
  },
});

function burnIndexerWorker(chain: Chain, pool: Pool, log: Logger): IntervalWorker {
  const indexer = new BurnIndexer({
    pool,
    provider: chain.provider,
    contractAddress: chain.contract.address,
    chainId: chain.chainId,
    confirmations: config.HALLMARK_CHAIN_CONFIRMATIONS,
    blockRange: config.HALLMARK_BURN_INDEXER_BLOCK_RANGE,
    startBlock: config.HALLMARK_BURN_INDEXER_START_BLOCK,
    log,
  });
  return new IntervalWorker(
    { name: 'burn indexer', intervalMs: config.HALLMARK_BURN_INDEXER_INTERVAL_MS, log },
    () => indexer.runOnce(),
  );
}

/**
 * The allowlist writer, run by the mint worker's pass: sends with the relayer's key through the
 * relayer's transaction path (its signer mutex and fee bumps), only in the replica holding the
 * relayer's advisory lock, so no other replica ever signs with the same nonces.
 */
function allowlistProcessorOf(
  chain: Chain,
  relayer: Relayer,
  store: AllowlistStore,
  log: Logger,
): AllowlistProcessor {
  return new AllowlistProcessor({
    store,
    contract: chain.contract,
    tx: relayer.tx,
    confirmations: config.HALLMARK_CHAIN_CONFIRMATIONS,
    batchSize: config.HALLMARK_ALLOWLIST_BATCH_SIZE,
    maxRetries: config.HALLMARK_ALLOWLIST_MAX_RETRIES,
    retryDelayMs: config.HALLMARK_ALLOWLIST_RETRY_DELAY_MS,
    receiptTimeoutMs: config.HALLMARK_CHAIN_RECEIPT_TIMEOUT_MS,
    log,
  });
}

/** Entries of an allowlist pass that became final. */
const countDone = (r: { succeeded: number; failed: number }) => r.succeeded + r.failed;
