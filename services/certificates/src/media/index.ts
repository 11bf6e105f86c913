// The media slice assembled for main.ts from the config: the blob store of the configured
// backend, the guarded fetcher, the service, its gRPC binding and the backfill worker.
import { bind, type Logger, type Pool, type ServiceParts } from '@hallmark/kit';
import { MediaServiceService, type MediaServiceServer } from '@hallmark/proto/certificates/v1/media';
import path from 'node:path';
import type { Config } from '../config.js';
import { fetchImageBytes, imageAgent } from './fetch.js';
import { FsStorage } from './fs-storage.js';
import { createMediaHandlers } from './rpc.js';
import { S3Storage } from './s3-storage.js';
import { MediaService } from './service.js';
import type { BlobStorage } from './storage.js';
import { MediaStore } from './store.js';
import { BackfillWorker } from './workers/backfill.js';

type MediaConfig = Pick<
  Config,
  | 'HALLMARK_MEDIA_BACKEND'
  | 'HALLMARK_DATA_DIR'
  | 'HALLMARK_MEDIA_DIR'
  | 'HALLMARK_MEDIA_S3_BUCKET'
  | 'HALLMARK_MEDIA_S3_ENDPOINT'
  | 'HALLMARK_MEDIA_S3_REGION'
  | 'HALLMARK_MEDIA_S3_ACCESS_KEY_ID'
  | 'HALLMARK_MEDIA_S3_SECRET_ACCESS_KEY'
  | 'HALLMARK_MEDIA_S3_PREFIX'
  | 'HALLMARK_MEDIA_FETCH_TIMEOUT_MS'
  | 'HALLMARK_MEDIA_MAX_BYTES'
  | 'HALLMARK_OUTBOUND_ALLOW_HOSTS'
  | 'HALLMARK_MEDIA_BACKFILL_INTERVAL_MS'
>;

export function storageOf(c: MediaConfig): BlobStorage {
  if (c.HALLMARK_MEDIA_BACKEND === 's3')
    return new S3Storage({
      bucket: c.HALLMARK_MEDIA_S3_BUCKET!,
      region: c.HALLMARK_MEDIA_S3_REGION,
      endpoint: c.HALLMARK_MEDIA_S3_ENDPOINT,
      accessKeyId: c.HALLMARK_MEDIA_S3_ACCESS_KEY_ID,
      secretAccessKey: c.HALLMARK_MEDIA_S3_SECRET_ACCESS_KEY,
      prefix: c.HALLMARK_MEDIA_S3_PREFIX,
    });
  return new FsStorage(path.resolve(c.HALLMARK_MEDIA_DIR ?? path.join(c.HALLMARK_DATA_DIR, 'media')));
}

export function mediaSlice(c: MediaConfig, pool: Pool, log: Logger, storage: BlobStorage = storageOf(c)) {
  const agent = imageAgent(c.HALLMARK_OUTBOUND_ALLOW_HOSTS);
  const fetch = (url: string) =>
    fetchImageBytes(url, {
      timeoutMs: c.HALLMARK_MEDIA_FETCH_TIMEOUT_MS,
      maxBytes: c.HALLMARK_MEDIA_MAX_BYTES,
      dispatcher: agent,
    });
  const store = new MediaStore(pool);
  const service = new MediaService({ store, storage, fetch, log });
  const workers: NonNullable<ServiceParts['workers']> = [];
  if (c.HALLMARK_MEDIA_BACKFILL_INTERVAL_MS > 0)
    workers.push(
      new BackfillWorker({
        store,
        media: service,
        fetch,
        log,
        intervalMs: c.HALLMARK_MEDIA_BACKFILL_INTERVAL_MS,
      }),
    );
  log.info({ backend: storage.kind }, 'media store');
  return {
    service,
    store,
    binding: bind<MediaServiceServer>(MediaServiceService, createMediaHandlers(service)),
    workers,
    close: () => agent.close(),
  };
}
