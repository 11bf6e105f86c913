// The blob store behind archived images: one small interface, two backends — a directory
// under the data dir (the embedded default of `pnpm start`) and any S3-compatible bucket
// (production). Objects are immutable and content-addressed, so `put` of an existing key is
// a harmless overwrite with the same bytes and no backend needs locking.
import type { ByteRange } from './domain/image.js';

export interface StoredObject {
  bytes: Buffer;
  /** Size of the whole object (the answer may be a range of it). */
  total: number;
}

export interface BlobStorage {
  readonly kind: 'fs' | 's3';
  put(key: string, bytes: Buffer, contentType: string): Promise<void>;
  /** The object (or the inclusive range of it); null when absent. */
  get(key: string, range?: ByteRange): Promise<StoredObject | null>;
  has(key: string): Promise<boolean>;
  /** Number of objects whose key starts with `prefix` (tests, operators). */
  count(prefix: string): Promise<number>;
}
