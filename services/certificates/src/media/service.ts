// The use cases of archived images: store bytes (content-addressed: the same image stored
// once, however many certificates show it), archive a URL (fetched once through the outbound
// guard), read an object or its WebP variant (made once, then kept), and check stored bytes
// against a recorded hash. The blob is written before its row, so a row always has bytes.
import { HallmarkError, invalidParam, type Logger } from '@hallmark/kit';
import { createHash } from 'node:crypto';
import {
  isVariantWidth,
  objectKey,
  SHA256_HEX,
  variantKey,
  type ByteRange,
  type VariantWidth,
} from './domain/image.js';
import { COULD_NOT_FETCH, couldNotFetchMessage, DEFAULT_URL_NAME, ImageFetchError } from './fetch.js';
import { makeVariant, NotAnImageError, prepareImage } from './process.js';
import type { BlobStorage } from './storage.js';
import type { MediaRow, MediaStore } from './store.js';

export interface MediaDeps {
  store: MediaStore;
  storage: BlobStorage;
  /** Fetches a URL's bytes through the outbound guard (throws ImageFetchError). */
  fetch: (url: string) => Promise<Buffer>;
  /** Where a failed fetch's precise cause goes (the customer reads only the one message). */
  log?: Logger;
}

export interface MediaRead {
  media: MediaRow;
  /** The bytes served: the whole object or the range asked for. */
  bytes: Buffer;
  /** Size of the whole object served (the variant's when a width was asked for). */
  total: number;
  contentType: string;
}

const notFound = (key: string) =>
  new HallmarkError('resource_not_found', { message: `No such media: ${key}`, param: 'id' });

export const sha256Hex = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

export class MediaService {
  constructor(private readonly d: MediaDeps) {}

  get storage(): BlobStorage {
    return this.d.storage;
  }

  /** Stores an image (type by magic bytes, GPS stripped unless `exact`); idempotent by content. */
  async put(input: Buffer, opts: { exact?: boolean; aliasId?: string } = {}): Promise<MediaRow> {
    if (input.length === 0) throw invalidParam('image', 'The image is empty.');
    let prepared;
    try {
      prepared = await prepareImage(input, opts.exact);
    } catch (err) {
      if (err instanceof NotAnImageError) throw invalidParam('image', `Not an image: ${err.message}.`);
      throw err;
    }
    const sha256 = sha256Hex(prepared.bytes);
    let row = await this.d.store.byHash(sha256);
    // A row whose blob is missing (a store swapped or restored from an older backup) is mended.
    if (!row || !(await this.d.storage.has(objectKey(sha256)))) {
      row ??= {
        sha256,
        contentType: prepared.contentType,
        size: prepared.bytes.length,
        width: prepared.width,
        height: prepared.height,
      };
      await this.d.storage.put(objectKey(sha256), prepared.bytes, prepared.contentType);
      await this.d.store.insert(row);
    }
    if (opts.aliasId) await this.d.store.alias(opts.aliasId, sha256);
    return row;
  }

  /**
   * Fetches `url` once and stores it. A failed fetch is parameter_invalid `name` (the caller's
   * name of the URL, `image_url` unless given): its own message when the URL was refused
   * before dialling, else the one "could not fetch" — bytes that are not an image included
   * (they would tell an image server from another) — with the cause logged (origin only: a
   * path or query may carry a signed token).
   */
  async archiveUrl(url: string, name = DEFAULT_URL_NAME): Promise<MediaRow> {
    let bytes: Buffer;
    try {
      bytes = await this.d.fetch(url);
    } catch (err) {
      if (!(err instanceof ImageFetchError)) throw err;
      if (err.message === COULD_NOT_FETCH) this.logFailure(url, err.detail);
      throw invalidParam(name, err.says(name));
    }
    try {
      return await this.put(bytes);
    } catch (err) {
      if (err instanceof HallmarkError && err.param === 'image') {
        this.logFailure(url, err.message);
        throw invalidParam(name, couldNotFetchMessage(name));
      }
      throw err;
    }
  }

  private logFailure(url: string, detail: string): void {
    let origin = '';
    try {
      origin = new URL(url).origin;
    } catch {
      /* checked before any fetch; nothing to name */
    }
    this.d.log?.info({ origin, detail }, 'image fetch failed');
  }

  async resolve(key: string): Promise<MediaRow | null> {
    if (SHA256_HEX.test(key)) return this.d.store.byHash(key);
    if (/^[A-Za-z0-9_]{1,64}$/.test(key)) return this.d.store.byAlias(key);
    return null;
  }

  /** The object of `key` (or its variant of `width`), whole or the range (clamped). */
  async read(key: string, width = 0, range?: ByteRange): Promise<MediaRead> {
    const media = await this.resolve(key);
    if (!media) throw notFound(key);
    if (width === 0) {
      // A range past the end answers no bytes (the gateway says 416); the store never sees it.
      if (range && range.start >= media.size)
        return { media, bytes: Buffer.alloc(0), total: media.size, contentType: media.contentType };
      range &&= { start: range.start, end: Math.min(range.end, media.size - 1) };
      const got = await this.d.storage.get(objectKey(media.sha256), range);
      if (!got) throw notFound(key);
      return { media, bytes: got.bytes, total: got.total, contentType: media.contentType };
    }
    if (!isVariantWidth(width)) throw invalidParam('w', 'w must be 480 or 1024.');
    await this.ensureVariant(media, width);
    const size = (await this.d.store.variantSize(media.sha256, width)) ?? 0;
    if (range && range.start >= size)
      return { media, bytes: Buffer.alloc(0), total: size, contentType: 'image/webp' };
    range &&= { start: range.start, end: Math.min(range.end, size - 1) };
    let got = await this.d.storage.get(variantKey(media.sha256, width), range);
    if (!got) {
      // Recorded but not in this store (swapped or restored): made again.
      await this.ensureVariant(media, width, true);
      got = await this.d.storage.get(variantKey(media.sha256, width), range);
    }
    if (!got) throw notFound(key);
    return { media, bytes: got.bytes, total: got.total, contentType: 'image/webp' };
  }

  private async ensureVariant(media: MediaRow, width: VariantWidth, force = false): Promise<void> {
    if (!force && (await this.d.store.variantSize(media.sha256, width)) !== null) return;
    const original = await this.d.storage.get(objectKey(media.sha256));
    if (!original) throw notFound(media.sha256);
    const bytes = await makeVariant(original.bytes, width);
    await this.d.storage.put(variantKey(media.sha256, width), bytes, 'image/webp');
    await this.d.store.insertVariant(media.sha256, width, bytes.length);
  }

  /** Whether the stored bytes of `sha256` are there and hash to it (the verify page's check). */
  async storedMatches(sha256: string): Promise<boolean> {
    if (!SHA256_HEX.test(sha256)) return false;
    const got = await this.d.storage.get(objectKey(sha256));
    return got !== null && sha256Hex(got.bytes) === sha256;
  }

  async dimensions(sha256: string): Promise<{ width: number; height: number } | null> {
    const m = SHA256_HEX.test(sha256) ? await this.d.store.byHash(sha256) : null;
    return m ? { width: m.width, height: m.height } : null;
  }
}
