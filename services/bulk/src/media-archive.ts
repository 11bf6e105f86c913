// The certificates service's media store as bulk sees it: ZIP images handed over as a gRPC
// client stream (64 KB messages), read back as a server stream (job downloads). Images belong
// to certificates (a certificate is forever; a job is transient); bulk keeps only their ids.
import type { GrpcClient } from '@hallmark/kit';
import type { MediaServiceClient, PutMediaRequest } from '@hallmark/proto/certificates/v1/media';

export interface ArchivedImage {
  sha256: string;
  contentType: string;
}

export interface MediaArchive {
  /** Stores bytes (as they are with `exact`); `aliasId` keeps an old `/media/<id>` answering. */
  put(bytes: Buffer, opts?: { aliasId?: string; exact?: boolean }): Promise<ArchivedImage>;
  get(sha256: string): Promise<Buffer>;
}

const CHUNK = 64 * 1024;

export function grpcMediaArchive(
  client: Pick<GrpcClient<MediaServiceClient>, 'uploads' | 'streams'>,
): MediaArchive {
  return {
    async put(bytes, opts = {}) {
      function* messages(): Generator<PutMediaRequest> {
        yield { alias_id: opts.aliasId, exact: opts.exact ?? false, data: bytes.subarray(0, CHUNK) };
        for (let at = CHUNK; at < bytes.length; at += CHUNK)
          yield { exact: false, data: bytes.subarray(at, at + CHUNK) };
      }
      const res = await client.uploads.putMedia(messages(), { deadlineMs: 60_000 });
      return { sha256: res.media!.sha256, contentType: res.media!.content_type };
    },
    async get(sha256) {
      const chunks: Buffer[] = [];
      for await (const msg of client.streams.getMedia({ key: sha256, width: 0 }, { deadlineMs: 60_000 }))
        chunks.push(msg.data);
      return Buffer.concat(chunks);
    },
  };
}
