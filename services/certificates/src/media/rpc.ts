// MediaService handlers (proto/hallmark/certificates/v1/media.proto): proto ↔ service calls.
import { invalidParam } from '@hallmark/kit';
import type { AsyncHandlers } from '@hallmark/kit';
import type { MediaRef, MediaServiceServer, PutMediaRequest } from '@hallmark/proto/certificates/v1/media';
import { DEFAULT_URL_NAME } from './fetch.js';
import type { MediaService } from './service.js';
import type { MediaRow } from './store.js';

/** Largest image accepted over PutMedia (the ZIP entries' own cap is lower). */
const MAX_PUT_BYTES = 32 * 1024 * 1024;
/** Bytes per GetMedia message. */
const CHUNK = 64 * 1024;

const refOf = (m: MediaRow): MediaRef => ({
  sha256: m.sha256,
  content_type: m.contentType,
  size: m.size,
  width: m.width,
  height: m.height,
});

export function createMediaHandlers(media: MediaService): AsyncHandlers<MediaServiceServer> {
  return {
    async putMedia(requests: AsyncIterable<PutMediaRequest>) {
      const chunks: Buffer[] = [];
      let size = 0;
      let aliasId: string | undefined;
      let exact = false;
      let first = true;
      for await (const msg of requests) {
        if (first) {
          aliasId = msg.alias_id || undefined;
          exact = msg.exact;
          first = false;
        }
        size += msg.data.length;
        if (size > MAX_PUT_BYTES) throw invalidParam('image', 'The image is larger than 32 MB.');
        chunks.push(Buffer.from(msg.data));
      }
      return { media: refOf(await media.put(Buffer.concat(chunks), { exact, aliasId })) };
    },
    async archiveImageUrl(req) {
      // The caller's name of the URL, echoed in the refusal: a plain field name or the default.
      const name = /^[A-Za-z][\w.[\]]{0,63}$/.test(req.param ?? '') ? req.param! : DEFAULT_URL_NAME;
      if (!req.url) throw invalidParam(name, `${name} is required.`);
      return { media: refOf(await media.archiveUrl(req.url, name)) };
    },
    async *getMedia(req) {
      const range =
        req.range_start !== undefined
          ? { start: Number(req.range_start), end: Number(req.range_end ?? Number.MAX_SAFE_INTEGER) }
          : undefined;
      const read = await media.read(req.key, req.width, range);
      const ref = { ...refOf(read.media), content_type: read.contentType };
      yield { media: ref, total: read.total, data: read.bytes.subarray(0, CHUNK) };
      for (let at = CHUNK; at < read.bytes.length; at += CHUNK)
        yield { total: read.total, data: read.bytes.subarray(at, at + CHUNK) };
    },
  };
}
