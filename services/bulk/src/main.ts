// Wiring only: config, database, bus, gRPC server, the Restate endpoint of the bulk-job
// workflow (registered with Restate at start), the run submitter, shutdown.
import { bind, createGrpcClient, gaugeFrom, Encryptor, runServiceMain } from '@hallmark/kit';
import { restateEndpoint } from '@hallmark/kit/restate';
import { BulkServiceService, type BulkServiceServer } from '@hallmark/proto/bulk/v1/bulk';
import { CertificatesServiceClient } from '@hallmark/proto/certificates/v1/certificates';
import { MediaServiceClient } from '@hallmark/proto/certificates/v1/media';
import { CertificateVoucherServiceClient } from '@hallmark/proto/certificates/v1/vouchers';
import path from 'node:path';
import { BatchesStore } from './batches-store.js';
import { loadBulkConfig } from './config.js';
import { ExportStore, JOB_ROWS_RETENTION } from './export-store.js';
import { grpcMediaArchive } from './media-archive.js';
import { MediaStore } from './media-store.js';
import { mediaMoverWorker } from './workers/media-mover.js';
import { createBulkHandlers } from './rpc.js';
import { BulkService } from './service.js';
import { JobsStore } from './store.js';
import { submitterWorker } from './workers/submitter.js';
import { bulkJobObject } from './workflows/bulk-job.js';
import { JobSteps } from './workflows/steps.js';
import { jobRuns } from './workflows/submit.js';

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
  retention: JOB_ROWS_RETENTION,
  build: ({ pool, log }) => {
    const jobs = new JobsStore(pool, new Encryptor(config.HALLMARK_ENCRYPTION_KEYS));
    const certificates = createGrpcClient(CertificatesServiceClient, config.HALLMARK_CERTIFICATES_ADDR);
    const vouchers = createGrpcClient(CertificateVoucherServiceClient, config.HALLMARK_CERTIFICATES_ADDR);
    const media = createGrpcClient(MediaServiceClient, config.HALLMARK_CERTIFICATES_ADDR);
    const steps = new JobSteps({
      jobs,
      batches: new BatchesStore(jobs),
      certificates: certificates.api,
      vouchers: vouchers.api,
      archiveImage: config.HALLMARK_BULK_FETCH_IMAGES
        ? async (url) => {
            const res = await media.api.archiveImageUrl({ url }, { deadlineMs: 60_000, idempotent: true });
            return { sha256: res.media!.sha256, contentType: res.media!.content_type };
          }
        : undefined,
      publicUrl: config.HALLMARK_PUBLIC_URL,
      batchSize: config.HALLMARK_BULK_BATCH_SIZE,
      log,
    });
    const runs = jobRuns(config.HALLMARK_RESTATE_INGRESS_URL);
    // The job backlog, read at each scrape of the metrics port.
    gaugeFrom(
      'hallmark_bulk_jobs_backlog',
      'Unfinished bulk jobs by status (queued, processing)',
      ['status'],
      async () => backlogOf(await jobs.backlog(), 'jobs'),
      { shared: true },
    );
    gaugeFrom(
      'hallmark_bulk_items_backlog',
      'Items of unfinished bulk jobs not processed yet, by job status',
      ['status'],
      async () => backlogOf(await jobs.backlog(), 'items'),
      { shared: true },
    );
    const mediaStore = new MediaStore(pool);
    const archive = grpcMediaArchive(media);
    const service = new BulkService({
      jobs,
      media: mediaStore,
      archive,
      exports: { items: new ExportStore(pool) },
      ingress: runs,
      log,
      syncMaxItems: config.SYNC_MINT_MAX_ITEMS,
      pricing: {
        unitPrice: config.HALLMARK_PRICE_PER_CERTIFICATE,
        currency: config.HALLMARK_PRICE_CURRENCY,
        gasPerCertificate: config.HALLMARK_GAS_PER_CERTIFICATE,
        gasPerBatch: config.HALLMARK_GAS_PER_BATCH,
        batchSize: config.HALLMARK_BULK_BATCH_SIZE,
      },
    });
    return {
      services: [bind<BulkServiceServer>(BulkServiceService, createBulkHandlers(service))],
      workers: [
        restateEndpoint([bulkJobObject(steps, { pipelineDepth: config.HALLMARK_BULK_PIPELINE_DEPTH })], {
          host: config.HALLMARK_BULK_RESTATE_HOST,
          port: config.HALLMARK_BULK_RESTATE_PORT,
          url: config.HALLMARK_BULK_RESTATE_URL,
          release: config.HALLMARK_RELEASE,
          adminUrl: config.HALLMARK_BULK_RESTATE_REGISTER ? config.HALLMARK_RESTATE_ADMIN_URL : null,
          force: config.HALLMARK_RESTATE_FORCE_REGISTER,
          log,
          onStop: () => {
            certificates.close();
            vouchers.close();
            media.close();
          },
        }),
        submitterWorker(runs, jobs, pool, log, config.HALLMARK_BULK_SUBMIT_INTERVAL_MS),
        mediaMoverWorker(mediaStore, archive, log, 30_000),
      ],
    };
  },
});

/** Both unfinished statuses every time (0 when none), so a drained backlog reads 0. */
function backlogOf(rows: { status: string; jobs: number; items: number }[], what: 'jobs' | 'items') {
  return ['queued', 'processing'].map((status) => ({
    labels: { status },
    value: rows.find((r) => r.status === status)?.[what] ?? 0,
  }));
}
