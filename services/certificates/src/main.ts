// Wiring only: config, database, bus, chain, gRPC server, mint worker, shutdown.
import { bind, runServiceMain } from '@hallmark/kit';
import {
  CertificatesServiceService,
  type CertificatesServiceServer,
} from '@hallmark/proto/certificates/v1/certificates';
import path from 'node:path';
import { Relayer } from './chain/relayer.js';
import { connectChain, type Chain } from './chain/setup.js';
import { loadCertificatesConfig } from './config.js';
import { MintWorker } from './minter.js';
import { createCertificatesHandlers } from './rpc.js';
import { CertificatesStore } from './store.js';

const config = loadCertificatesConfig();

await runServiceMain({
  name: 'certificates',
  address: config.HALLMARK_CERTIFICATES_ADDR,
  databaseServerUrl: config.DATABASE_URL,
  natsUrl: config.NATS_URL,
  databasePrefix: config.HALLMARK_DATABASE_PREFIX,
  logLevel: config.LOG_LEVEL,
  migrationsDirs: [path.join(import.meta.dirname, '..', 'migrations')],
  protoFiles: ['hallmark/certificates/v1/certificates.proto'],
  build: async ({ pool, log }) => {
    let chain: Chain | null = null;
    if (config.HALLMARK_CHAIN_RPC_URL && config.HALLMARK_RELAYER_KEY) {
      chain = await connectChain(
        {
          rpcUrl: config.HALLMARK_CHAIN_RPC_URL,
          relayerKey: config.HALLMARK_RELAYER_KEY,
          chainId: config.HALLMARK_CHAIN_ID,
          contractAddress: config.HALLMARK_CONTRACT_ADDRESS,
          baseURI: new URL('/api/certificate/metadata/', config.HALLMARK_PUBLIC_URL).toString(),
        },
        pool,
        log,
      );
      log.info({ contract: chain.contract.address, relayer: chain.signer.address }, 'chain connected');
    } else {
      log.warn('no HALLMARK_CHAIN_RPC_URL: running without a chain (MintBatch unavailable)');
    }
    const store = new CertificatesStore(pool, () => chain?.contract.address ?? null);
    const worker = chain
      ? new MintWorker(
          pool,
          new Relayer({
            pool,
            provider: chain.provider,
            signer: chain.signer,
            contract: chain.contract,
            chainId: chain.chainId,
            confirmations: config.HALLMARK_CHAIN_CONFIRMATIONS,
            store,
            log,
            receiptTimeoutMs: config.HALLMARK_CHAIN_RECEIPT_TIMEOUT_MS,
          }),
          log,
          config.HALLMARK_CERTIFICATES_MINT_INTERVAL_MS,
        )
      : null;
    return {
      services: [
        bind<CertificatesServiceServer>(
          CertificatesServiceService,
          createCertificatesHandlers({
            store,
            provider: chain?.provider ?? null,
            onBatchRecorded: () => worker?.wake(),
          }),
        ),
      ],
      workers: worker ? [worker] : [],
    };
  },
});
