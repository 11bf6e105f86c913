// The S3 backend: objects in one bucket of any S3-compatible store (AWS S3, MinIO, R2, …),
// bucket, endpoint, region and credentials from configuration. Path-style addressing is on
// when an endpoint is given (what self-hosted stores expect).
import {
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  NoSuchKey,
  NotFound,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import type { ByteRange } from './domain/image.js';
import type { BlobStorage, StoredObject } from './storage.js';

export interface S3StorageOptions {
  bucket: string;
  region: string;
  endpoint?: string;
  accessKeyId?: string;
  secretAccessKey?: string;
  /** Key prefix inside the bucket (several deployments may share one). */
  prefix?: string;
}

const missing = (err: unknown) =>
  err instanceof NoSuchKey ||
  err instanceof NotFound ||
  (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 404;

export class S3Storage implements BlobStorage {
  readonly kind = 's3' as const;
  private readonly client: S3Client;
  private readonly prefix: string;

  constructor(private readonly opts: S3StorageOptions) {
    this.client = new S3Client({
      region: opts.region,
      ...(opts.endpoint ? { endpoint: opts.endpoint, forcePathStyle: true } : {}),
      ...(opts.accessKeyId && opts.secretAccessKey
        ? { credentials: { accessKeyId: opts.accessKeyId, secretAccessKey: opts.secretAccessKey } }
        : {}),
    });
    this.prefix = opts.prefix ?? '';
  }

  async put(key: string, bytes: Buffer, contentType: string): Promise<void> {
    await this.client.send(
      new PutObjectCommand({
        Bucket: this.opts.bucket,
        Key: this.prefix + key,
        Body: bytes,
        ContentType: contentType,
        CacheControl: 'public, max-age=31536000, immutable',
      }),
    );
  }

  async get(key: string, range?: ByteRange): Promise<StoredObject | null> {
    try {
      const res = await this.client.send(
        new GetObjectCommand({
          Bucket: this.opts.bucket,
          Key: this.prefix + key,
          ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}),
        }),
      );
      const bytes = Buffer.from(await res.Body!.transformToByteArray());
      const total = range
        ? Number(/\/(\d+)$/.exec(res.ContentRange ?? '')?.[1] ?? bytes.length)
        : bytes.length;
      return { bytes, total };
    } catch (err) {
      if (missing(err)) return null;
      throw err;
    }
  }

  async has(key: string): Promise<boolean> {
    try {
      await this.client.send(new HeadObjectCommand({ Bucket: this.opts.bucket, Key: this.prefix + key }));
      return true;
    } catch (err) {
      if (missing(err)) return false;
      throw err;
    }
  }

  async count(prefix: string): Promise<number> {
    let n = 0;
    let token: string | undefined;
    do {
      const page = await this.client.send(
        new ListObjectsV2Command({
          Bucket: this.opts.bucket,
          Prefix: this.prefix + prefix,
          ContinuationToken: token,
        }),
      );
      n += page.KeyCount ?? page.Contents?.length ?? 0;
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    return n;
  }

  close(): void {
    this.client.destroy();
  }
}
