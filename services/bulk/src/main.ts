// Wiring only: config, database, bus, gRPC server, the Restate endpoint of the bulk-job
// workflow (registered with Restate at start), the run submitter, shutdown.
import {
  bind,
  createGrpcClient,
  createGuardedAgent,
  Encryptor,
  OutboundGuard,
  registerRestateDeployment,
  runServiceMain,
  type Logger,
} from '@hallmark/kit';
import { BulkServiceService, type BulkServiceServer } from '@hallmark/proto/bulk/v1/bulk';
import { CertificatesServiceClient } from '@hallmark/proto/certificates/v1/certificates';
import { CertificateVoucherServiceClient } from '@hallmark/proto/certificates/v1/vouchers';
import * as restate from '@restatedev/restate-sdk';
import http2 from 'node:http2';
import path from 'node:path';
import { BatchesStore } from './batches-store.js';
import { loadBulkConfig } from './config.js';
import { fetchImage } from './image-fetch.js';
import { createBulkHandlers } from './rpc.js';
import { JobsStore } from './store.js';
import { bulkJobObject } from './workflows/bulk-job.js';
import { JobSteps } from './workflows/steps.js';
import { restateIngress, submitterWorker } from './workflows/submit.js';

const config = loadBulkConfig();

await runServiceMain({
  name: 'bulk',
  address: config.HALLMARK_BULK_ADDR,
  databaseServerUrl: config.DATABASE_URL,
  natsUrl: config.NATS_URL,
  databasePrefix: config.HALLMARK_DATABASE_PREFIX,
  logLevel: config.LOG_LEVEL,
  migrationsDirs: [path.join(import.meta.dirname, '..', 'migrations')],
  protoFiles: ['hallmark/bulk/v1/bulk.proto'],
  build: ({ pool, log }) => {
    const jobs = new JobsStore(pool, new Encryptor(config.HALLMARK_ENCRYPTION_KEYS));
    const batches = new BatchesStore(jobs);
    const certificates = createGrpcClient(CertificatesServiceClient, config.HALLMARK_CERTIFICATES_ADDR);
    const vouchers = createGrpcClient(CertificateVoucherServiceClient, config.HALLMARK_CERTIFICATES_ADDR);
    const steps = new JobSteps({
      jobs,
      batches,
      certificates: certificates.api,
      vouchers: vouchers.api,
      fetchImage: config.HALLMARK_BULK_FETCH_IMAGES
        ? (url) =>
            fetchImage(url, {
              timeoutMs: config.HALLMARK_BULK_IMAGE_TIMEOUT_MS,
              maxBytes: config.HALLMARK_BULK_IMAGE_MAX_BYTES,
              dispatcher: images,
            })
        : undefined,
      publicUrl: config.HALLMARK_PUBLIC_URL,
      batchSize: config.HALLMARK_BULK_BATCH_SIZE,
      log,
    });
    const ingress = restateIngress(config.HALLMARK_RESTATE_INGRESS_URL);
    // One guarded agent for every image fetch: connections are reused across a job's URLs.
    const images = createGuardedAgent(new OutboundGuard(config.HALLMARK_OUTBOUND_ALLOW_HOSTS), {
      connections: 16,
    });
    return {
      services: [
        bind<BulkServiceServer>(
          BulkServiceService,
          createBulkHandlers({
            jobs,
            ingress,
            log,
            syncMaxItems: config.SYNC_MINT_MAX_ITEMS,
            pricing: {
              unitPrice: config.HALLMARK_PRICE_PER_CERTIFICATE,
              currency: config.HALLMARK_PRICE_CURRENCY,
              gasPerCertificate: config.HALLMARK_GAS_PER_CERTIFICATE,
              gasPerBatch: config.HALLMARK_GAS_PER_BATCH,
              batchSize: config.HALLMARK_BULK_BATCH_SIZE,
            },
          }),
        ),
      ],
      workers: [
        restateEndpoint(steps, log, () => {
          certificates.close();
          vouchers.close();
          void images.close();
        }),
        submitterWorker(ingress, jobs, pool, log, config.HALLMARK_BULK_SUBMIT_INTERVAL_MS),
      ],
    };
  },
});

/** The workflow's HTTP/2 endpoint for Restate, registered once it listens. */
function restateEndpoint(steps: JobSteps, log: Logger, onStop: () => void) {
  const endpoint = restate
    .endpoint()
    .bind(bulkJobObject(steps, { pipelineDepth: config.HALLMARK_BULK_PIPELINE_DEPTH }));
  const server = http2.createServer(endpoint.http2Handler());
  return {
    async start() {
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(config.HALLMARK_BULK_RESTATE_PORT, config.HALLMARK_BULK_RESTATE_HOST, () => resolve());
      });
      const port = (server.address() as { port: number }).port;
      const uri = config.HALLMARK_BULK_RESTATE_URL ?? `http://127.0.0.1:${port}`;
      log.info({ uri }, 'restate endpoint listening');
      if (config.HALLMARK_BULK_RESTATE_REGISTER) {
        // In the background: the service answers (reads, job creation) while Restate starts;
        // runs submitted meanwhile are re-sent by the submitter.
        void registerRestateDeployment(config.HALLMARK_RESTATE_ADMIN_URL, uri, { timeoutMs: Infinity }).then(
          () => log.info({ uri }, 'restate endpoint registered'),
          (err: unknown) => log.error({ err }, 'restate endpoint registration refused'),
        );
      }
    },
    async stop() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      onStop();
    },
  };
}
