// Wiring only: config, database, bus, gRPC server (and the certificates media client the
// issuer profile archives logos with), workers, shutdown.
import { createGrpcClient, runServiceMain } from '@hallmark/kit';
import { MediaServiceClient } from '@hallmark/proto/certificates/v1/media';
import path from 'node:path';
import { loadKeysConfig } from './config.js';
import { grpcLogoArchive } from './profile/logo-archive.js';
import { createProofCheck } from './profile/proof-fetch.js';
import { ProfileService } from './profile/service.js';
import { keysServiceBinding } from './rpc.js';
import { KeysService } from './service.js';
import { USAGE_RETENTION } from './usage-store.js';

const config = loadKeysConfig();

await runServiceMain({
  name: 'keys',
  address: config.HALLMARK_KEYS_ADDR,
  databaseServerUrl: config.DATABASE_URL,
  natsUrl: config.NATS_URL,
  databasePrefix: config.HALLMARK_DATABASE_PREFIX,
  logLevel: config.LOG_LEVEL,
  migrationsDirs: [path.join(import.meta.dirname, '..', 'migrations')],
  protoFiles: ['hallmark/keys/v1/keys.proto'],
  retention: USAGE_RETENTION,
  build: ({ pool, log }) => {
    const media = createGrpcClient(MediaServiceClient, config.HALLMARK_CERTIFICATES_ADDR);
    const profiles = new ProfileService(pool, {
      checkProof: createProofCheck({
        allowHosts: config.HALLMARK_OUTBOUND_ALLOW_HOSTS,
        timeoutMs: config.HALLMARK_ISSUER_PROOF_TIMEOUT_MS,
        log,
      }),
      archiveLogo: grpcLogoArchive(media.api),
    });
    return { services: [keysServiceBinding(new KeysService(pool), profiles)] };
  },
});
