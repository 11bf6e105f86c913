// The service's parts from its config: the chain (connected, or none), stores, the relayer,
// custodial wallets and transfers, certificate-voucher claims, the allowlist writer, the gRPC
// handlers, and the workers (mint worker with its passes, chain indexer, provisioning consumer).
// main.ts binds them to the gRPC services and hands the workers to the kit's runner.
import { IntervalWorker, type Logger, type Pool, type ServiceDeps, type ServiceParts } from '@hallmark/kit';
import { Relayer } from './chain/relayer.js';
import { connectChain, type Chain } from './chain/setup.js';
import { feePolicyOf, type Config } from './config.js';
import { MintWorker, MintWorkers, withPasses } from './workers/mint-worker.js';
import { CertificatesStore } from './store.js';
import { ChainIndexer } from './indexer/workers/chain-indexer.js';
import { AllowlistProcessor } from './allowlist/workers/processor.js';
import { ProvisioningConsumer } from './allowlist/workers/provisioning.js';
import { issuerProfileConsumer } from './issuers/workers/profile-consumer.js';
import { AllowlistStore } from './allowlist/store.js';
import { MetadataAnnouncer } from './metadata-updates/workers/announcer.js';
import { TransferService } from './transfers/service.js';
import { WalletStore } from './wallets/store.js';
import { CertificateVoucherClaims } from './certificate-vouchers/claim.js';
import { CertificateVoucherStore, recordVouchersMinted } from './certificate-vouchers/store.js';
import { credentialsSlice } from './credentials/index.js';
import { queueCredentials } from './credentials/store.js';

/** What main.ts binds to the gRPC services, and the workers it runs. */
export interface CertificatesParts {
  chain: Chain | null;
  store: CertificatesStore;
  wallets: WalletStore | undefined;
  transfers: TransferService | undefined;
  vouchers: CertificateVoucherStore;
  claims: CertificateVoucherClaims | undefined;
  allowlistStore: AllowlistStore;
  /** Verifiable credentials (its gRPC binding; its worker is among `workers`). */
  credentials: ReturnType<typeof credentialsSlice>;
  /** The mint workers, one per signer (null without a chain): woken when a batch, transfer or allowlist request is recorded. */
  worker: MintWorkers | null;
  workers: NonNullable<ServiceParts['workers']>;
}

/** Builds the parts of the certificates service from its loaded config. */
export async function buildParts(
  config: Config,
  { pool, bus, log }: ServiceDeps,
): Promise<CertificatesParts> {
  let chain: Chain | null = null;
  if (config.HALLMARK_CHAIN_RPC_URL && config.HALLMARK_RELAYER_KEY) {
    chain = await connectChain(
      {
        rpcUrl: config.HALLMARK_CHAIN_RPC_URL,
        relayerKey: config.HALLMARK_RELAYER_KEY,
        signers: config.HALLMARK_RELAYER_SIGNERS,
        mintKeys: config.HALLMARK_RELAYER_MINT_KEYS,
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
        mintSigners: chain.signers.map((w) => w.address),
        transferEvents: chain.transferEvents,
      },
      'chain connected',
    );
  } else {
    log.warn('no HALLMARK_CHAIN_RPC_URL: running without a chain (MintBatch unavailable)');
  }
  const store = new CertificatesStore(pool, () => chain?.contract.address ?? null);
  const credentials = credentialsSlice({
    config,
    pool,
    log,
    certificates: store,
    chainId: chain?.chainId ?? null,
    // Minting is busy while a submission is open or one was confirmed in the last 5 s
    // (a bulk job's next batch is seconds away on a busy machine).
    mintsActive: chain ? () => store.mintsActive(5000) : undefined,
  });
  const relayers = chain ? mintRelayers(config, chain, pool, store, log) : [];
  const relayer = relayers[0] ?? null;
  for (const r of relayers) r.observe(); // their gauges, read at each scrape of the metrics port
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
  const vouchers = new CertificateVoucherStore(pool, {
    publicUrl: config.HALLMARK_PUBLIC_URL,
    encryptionKeys: config.HALLMARK_ENCRYPTION_KEYS,
  });
  const claims =
    wallets && transfers
      ? new CertificateVoucherClaims({
          store: vouchers,
          wallets,
          transfers,
          maxAttempts: config.HALLMARK_CLAIM_MAX_ATTEMPTS,
          log,
        })
      : undefined;
  const allowlistStore = new AllowlistStore(pool);
  const allowlist =
    chain && relayer ? allowlistProcessorOf(config, chain, relayer, allowlistStore, log) : null;
  // The mint worker's pass also sends transfers, repairs certificate-voucher claims whose
  // transfer failed, writes the allowlist and announces ERC-4906 metadata updates (after the
  // mints, so a certificate minted in this pass is announced in it): one replica, one signer,
  // one nonce sequence.
  const announcer = relayer
    ? new MetadataAnnouncer({
        pool,
        relayer,
        confirmations: config.HALLMARK_CHAIN_CONFIRMATIONS,
        log,
        receiptTimeoutMs: config.HALLMARK_CHAIN_RECEIPT_TIMEOUT_MS,
      })
    : null;
  const passes: Array<() => Promise<number>> = [
    ...(transfers && claims ? [() => transfers.processOpen(), () => claims.repairPass()] : []),
    ...(allowlist ? [async () => countDone(await allowlist.runOnce())] : []),
    // After the pass's confirmations committed: the credentials of what was just minted.
    async () => {
      credentials.worker?.wake();
      return 0;
    },
    ...(announcer ? [() => announcer.processOpen()] : []),
  ];
  const mintWorkers = relayers.map(
    (r, i) =>
      new MintWorker(
        pool,
        i === 0 ? withPasses(r, passes) : r,
        log,
        config.HALLMARK_CERTIFICATES_MINT_INTERVAL_MS,
      ),
  );
  const worker = mintWorkers.length > 0 ? new MintWorkers(mintWorkers) : null;
  const workers: CertificatesParts['workers'] = [
    ...mintWorkers,
    ...(chain ? [chainIndexerWorker(config, chain, pool, log)] : []),
    ...(credentials.worker ? [credentials.worker] : []),
    // The public reads' issuer line (keys' enterprise_profile.updated → issuer_profiles).
    issuerProfileConsumer({ bus, pool, log }),
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
  ];
  return { chain, store, wallets, transfers, vouchers, claims, allowlistStore, credentials, worker, workers };
}

/**
 * One relayer per mint signer (chain/relayer.ts): signer 1's also sends every other relayer
 * transaction and adopts submissions of signers no longer configured.
 */
function mintRelayers(config: Config, chain: Chain, pool: Pool, store: CertificatesStore, log: Logger) {
  const peers = chain.signers.map((w) => w.address);
  return chain.signers.map(
    (signer, i) =>
      new Relayer({
        pool,
        provider: chain.provider,
        signer,
        contract: chain.contract,
        chainId: chain.chainId,
        confirmations: config.HALLMARK_CHAIN_CONFIRMATIONS,
        store,
        // Vouchers created while their certificates were pending: voucher.minted in the
        // confirming transaction (the batch row lock serialises it with CreateVouchers); and
        // the certificates queued for their credentials (the credentials worker, woken by the
        // mint worker's pass).
        afterMinted: async (tx, ids) => {
          await recordVouchersMinted(tx, ids);
          await queueCredentials(tx, ids);
        },
        defaultTransferEvents: chain.transferEvents,
        log,
        receiptTimeoutMs: config.HALLMARK_CHAIN_RECEIPT_TIMEOUT_MS,
        feePolicy: feePolicyOf(config),
        maxInFlight: config.HALLMARK_RELAYER_MAX_IN_FLIGHT,
        peers,
        adoptOrphans: i === 0,
        // Signer 1's pass is followed by transfers, allowlist writes and announcements.
        refillMs: i === 0 ? PRIMARY_REFILL_MS : null,
      }),
  );
}

/** How long signer 1's mint pass takes in new batches before its other passes get their turn. */
const PRIMARY_REFILL_MS = 15_000;

function chainIndexerWorker(config: Config, chain: Chain, pool: Pool, log: Logger): IntervalWorker {
  const indexer = new ChainIndexer({
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
    { name: 'chain indexer', intervalMs: config.HALLMARK_BURN_INDEXER_INTERVAL_MS, log },
    () => indexer.runOnce(),
  );
}

/**
 * The allowlist writer, run by the mint worker's pass: sends with the relayer's key through the
 * relayer's transaction path (its signer mutex and fee bumps), only in the replica holding the
 * relayer's advisory lock, so no other replica ever signs with the same nonces.
 */
function allowlistProcessorOf(
  config: Config,
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
