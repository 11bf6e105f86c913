// The credentials slice assembled for main.ts: the stores, the service, its gRPC binding and
// the worker. Without HALLMARK_ENCRYPTION_KEYS (issuer secrets are stored only encrypted) the
// slice is off: its RPCs answer service_unavailable and nothing is issued (the queue waits).
import { bind, HallmarkError, type Logger, type Pool } from '@hallmark/kit';
import {
  CredentialsServiceService,
  type CredentialsServiceServer,
} from '@hallmark/proto/certificates/v1/credentials';
import type { Config } from '../config.js';
import type { CertificatesStore } from '../store.js';
import { VerifyStore } from '../verify/store.js';
import { IssuerKeyStore } from './keys-store.js';
import { createCredentialsHandlers } from './rpc.js';
import { CredentialService } from './service.js';
import { CredentialStore } from './store.js';
import { CredentialWorker } from './workers/issuer.js';

export interface CredentialsDeps {
  config: Pick<
    Config,
    | 'HALLMARK_PUBLIC_URL'
    | 'HALLMARK_ENCRYPTION_KEYS'
    | 'HALLMARK_CREDENTIALS_INTERVAL_MS'
    | 'HALLMARK_CREDENTIALS_BATCH_SIZE'
    | 'HALLMARK_CREDENTIALS_MAX_DEFER_MS'
  >;
  pool: Pool;
  log: Logger;
  certificates: CertificatesStore;
  /** The chain's id, when one is configured. */
  chainId: bigint | null;
  /** Whether minting is busy: the worker then waits (CredentialWorkerOptions). */
  mintsActive?: () => Promise<boolean>;
}

export function credentialsSlice(d: CredentialsDeps) {
  const { config, pool, log } = d;
  if (!config.HALLMARK_ENCRYPTION_KEYS) {
    log.warn('no HALLMARK_ENCRYPTION_KEYS: verifiable credentials are off');
    const off = async () => {
      throw new HallmarkError('service_unavailable', {
        message: 'Verifiable credentials are not configured.',
      });
    };
    const handlers = Object.fromEntries(
      Object.keys(CredentialsServiceService).map((m) => [m, off]),
    ) as unknown as Parameters<typeof bind<CredentialsServiceServer>>[1];
    return {
      service: null,
      worker: null,
      binding: bind<CredentialsServiceServer>(CredentialsServiceService, handlers),
    };
  }
  const service = new CredentialService({
    pool,
    store: new CredentialStore(pool),
    keys: new IssuerKeyStore(pool, config.HALLMARK_ENCRYPTION_KEYS),
    certificates: d.certificates,
    reads: new VerifyStore(pool),
    publicUrl: config.HALLMARK_PUBLIC_URL,
    chainId: d.chainId,
    batchSize: config.HALLMARK_CREDENTIALS_BATCH_SIZE,
    log,
  });
  const worker =
    d.chainId !== null && config.HALLMARK_CREDENTIALS_INTERVAL_MS > 0
      ? new CredentialWorker(service, log, {
          intervalMs: config.HALLMARK_CREDENTIALS_INTERVAL_MS,
          mintsActive: d.mintsActive,
          maxDeferMs: config.HALLMARK_CREDENTIALS_MAX_DEFER_MS,
        })
      : null;
  return {
    service,
    worker,
    binding: bind<CredentialsServiceServer>(CredentialsServiceService, createCredentialsHandlers(service)),
  };
}
