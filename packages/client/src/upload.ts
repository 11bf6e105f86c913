// The CSV form of POST /api/bulk-mint as a streamed multipart body: the CSV (`metadata`) and
// the optional images ZIP (`images`) come from file paths, bytes, or streams and are never
// read whole into memory; `onProgress` hears every chunk as it leaves. A body made from paths
// or bytes can be sent again (a 429 is retried); one made from a stream only once.
import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';

/** A file path, its bytes, or a stream of its bytes (Node Readable or web ReadableStream). */
export type FileSource = string | Uint8Array | NodeJS.ReadableStream | ReadableStream<Uint8Array>;

export interface UploadPart {
  name: string;
  source: FileSource;
  filename?: string;
  contentType: string;
}

export interface UploadProgress {
  sentBytes: number;
  /** Undefined when a part is a stream of unknown length. */
  totalBytes: number | undefined;
}

const CRLF = '\r\n';

async function sizeOf(source: FileSource): Promise<number | undefined> {
  if (typeof source === 'string') return (await stat(source)).size;
  if (source instanceof Uint8Array) return source.byteLength;
  return undefined;
}

async function* chunksOf(source: FileSource): AsyncGenerator<Uint8Array> {
  if (source instanceof Uint8Array) {
    for (let i = 0; i < source.byteLength; i += 64 * 1024) yield source.subarray(i, i + 64 * 1024);
    return;
  }
  const stream =
    typeof source === 'string'
      ? createReadStream(source, { highWaterMark: 64 * 1024 })
      : source instanceof ReadableStream
        ? Readable.fromWeb(source as never)
        : (source as AsyncIterable<Uint8Array>);
  for await (const chunk of stream as AsyncIterable<Uint8Array | string>) {
    yield typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
  }
}

export const replayable = (parts: UploadPart[]) =>
  parts.every((p) => typeof p.source === 'string' || p.source instanceof Uint8Array);

/** A multipart/form-data body with its content type and, when knowable, its length. */
export async function multipartBody(
  parts: UploadPart[],
  fields: Record<string, string>,
  onProgress?: (p: UploadProgress) => void,
): Promise<{ body: ReadableStream<Uint8Array>; contentType: string; length: number | undefined }> {
  const boundary = `----hallmark${randomBytes(12).toString('hex')}`;
  const heads = parts.map((p) => {
    const filename = p.filename ?? (typeof p.source === 'string' ? path.basename(p.source) : p.name);
    return Buffer.from(
      `--${boundary}${CRLF}Content-Disposition: form-data; name="${p.name}"; filename="${filename.replace(/["\r\n]/g, '_')}"${CRLF}` +
        `Content-Type: ${p.contentType}${CRLF}${CRLF}`,
    );
  });
  const tail = Buffer.from(
    Object.entries(fields)
      .map(
        ([k, v]) =>
          `--${boundary}${CRLF}Content-Disposition: form-data; name="${k}"${CRLF}${CRLF}${v}${CRLF}`,
      )
      .join('') + `--${boundary}--${CRLF}`,
  );
  const sizes = await Promise.all(parts.map((p) => sizeOf(p.source)));
  const length = sizes.some((s) => s === undefined)
    ? undefined
    : heads.reduce((n, h) => n + h.length, 0) +
      sizes.reduce<number>((n, s) => n + s!, 0) +
      parts.length * CRLF.length +
      tail.length;

  async function* all(): AsyncGenerator<Uint8Array> {
    for (let i = 0; i < parts.length; i++) {
      yield heads[i]!;
      yield* chunksOf(parts[i]!.source);
      yield Buffer.from(CRLF);
    }
    yield tail;
  }
  const it = all();
  let sent = 0;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await it.next();
      if (next.done) {
        controller.close();
        return;
      }
      sent += next.value.byteLength;
      controller.enqueue(next.value);
      onProgress?.({ sentBytes: sent, totalBytes: length });
    },
    async cancel() {
      await it.return(undefined);
    },
  });
  return { body, contentType: `multipart/form-data; boundary=${boundary}`, length };
}
