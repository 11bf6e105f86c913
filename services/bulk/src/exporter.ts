// Result downloads: the CSV (the spec's columns, formula cells neutralised) and the ZIP (each
// succeeded certificate's metadata JSON and, for images uploaded in a ZIP, the image). Rows
// are read in keyset pages (export-store.ts) and the file goes out as chunks while it is
// made (`csvChunks`, `zipChunks`: ExportJobStream), the next page read only once the
// previous one is written, so a 50,000-row job never sits in memory at once.
import yazl from 'yazl';
import { resultCsvHeader, resultCsvLine } from './domain/export.js';
import { voucherMetadataOf, type JobRecord } from './domain/job.js';
import type { ExportStore } from './export-store.js';
import type { MediaArchive } from './media-archive.js';
import type { MediaStore } from './media-store.js';

export interface ExportDeps {
  items: ExportStore;
  media: MediaStore;
  /** Where moved ZIP images are read back from (the certificates service). */
  archive?: MediaArchive;
  /** Recipient e-mails are stored encrypted. */
  decrypt: (s: string | null) => string | null;
}

/** Item status as the download names it: success, failed, or pending while still running. */
const downloadStatus = (s: string) => (s === 'success' ? 'success' : s === 'pending' ? 'pending' : 'failed');

export async function exportCsv(deps: ExportDeps, job: JobRecord): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const chunk of csvChunks(deps, job)) parts.push(chunk);
  return Buffer.concat(parts);
}

/** The CSV download, one chunk per page of items (the header first). */
export async function* csvChunks(deps: ExportDeps, job: JobRecord): AsyncGenerator<Buffer> {
  yield Buffer.from(resultCsvHeader(), 'utf8');
  for await (const rows of deps.items.pages(job.id)) {
    const parts: string[] = [];
    for (const r of rows) {
      parts.push(
        resultCsvLine({
          row: r.row_number,
          name: r.name,
          status: downloadStatus(r.status),
          certificateId: r.certificate_id,
          voucherId: r.voucher_id,
          referenceNumber: r.reference_number,
          recipientEmail: deps.decrypt(r.recipient_email),
          error: r.status === 'success' ? null : r.error,
        }),
      );
    }
    yield Buffer.from(parts.join(''), 'utf8');
  }
}

const EXT: Record<string, string> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/webp': 'webp',
  'image/gif': 'gif',
};

export async function exportZip(deps: ExportDeps, job: JobRecord): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const chunk of zipChunks(deps, job)) parts.push(chunk);
  return Buffer.concat(parts);
}

/** yazl's entries as it keeps them (each holds its compressed bytes until written). */
type YazlEntry = { state: number; getCentralDirectoryRecord(): Buffer };
const READY_TO_PUMP_FILE_DATA = 1; // yazl Entry.READY_TO_PUMP_FILE_DATA: its bytes are compressed
const FILE_DATA_DONE = 3; // yazl Entry.FILE_DATA_DONE
const OUTPUT_HIGH_WATER = 4 * 1024 * 1024;
/** Bytes per chunk of the download (one gRPC message each). */
const CHUNK = 64 * 1024;
/**
 * Entries compressing at once. yazl's addBuffer starts a zlib deflate at once for every
 * buffer added, each with its own ~256 KB of native state: a page of 1,000 added together
 * took the process from 200 MB to 760 MB of RSS (outside the JS heap's limit).
 */
const COMPRESSING = 8;

/**
 * Small buffers copied side by side into 64 KB slabs, read back in order as few large ones.
 * Holds the central directory of a large ZIP in about its own size (~90 bytes an entry).
 */
function packedBuffers() {
  const SLAB = 64 * 1024;
  const full: Buffer[] = [];
  let slab = Buffer.allocUnsafeSlow(SLAB);
  let used = 0;
  return {
    append(b: Buffer): void {
      if (used + b.length > slab.length) {
        full.push(slab.subarray(0, used));
        slab = Buffer.allocUnsafeSlow(Math.max(SLAB, b.length));
        used = 0;
      }
      used += b.copy(slab, used);
    },
    parts(): Buffer[] {
      return [...full, slab.subarray(0, used)];
    },
  };
}

/**
 * The ZIP download as chunks of yazl's output, in memory about one page however large the job.
 * A page of items is added only once the previous page's entries are written and the unread
 * output is under 4 MB, and at most COMPRESSING at once. yazl keeps every entry object until
 * its central directory is written at the end (~600 bytes each, with its file name a slice
 * of Node's shared buffer pool holding a whole 8 KB slab: 30 MB for 50,000 entries), and
 * looks for the next entry to write from the list's start on every write (quadratic). So an
 * entry written leaves yazl's list at once, only its central directory record kept, packed;
 * at the end the list is refilled with as many stand-ins, which hand yazl those records.
 */
export async function* zipChunks(deps: ExportDeps, job: JobRecord): AsyncGenerator<Buffer> {
  const zip = new yazl.ZipFile();
  const entries = (zip as unknown as { entries: YazlEntry[] }).entries;
  const out = zip.outputStream as unknown as import('node:stream').Readable;
  const directory = packedBuffers();
  let written = 0;
  let stopped = false; // the reader went away
  /** Drops the entries yazl has written (at the list's start), keeping their directory records. */
  const setAside = () => {
    let n = 0;
    while (n < entries.length && entries[n]!.state === FILE_DATA_DONE) {
      // Complete once written: offset, CRC and sizes known.
      directory.append(entries[n++]!.getCentralDirectoryRecord());
    }
    if (n > 0) entries.splice(0, n);
    written += n;
  };
  /** Waits until fewer than COMPRESSING added entries are still being compressed. */
  const room = async () => {
    for (;;) {
      setAside();
      let compressing = 0;
      for (const e of entries) if (e.state < READY_TO_PUMP_FILE_DATA) compressing++;
      if (stopped || compressing < COMPRESSING) return;
      await new Promise((r) => setImmediate(r));
    }
  };
  /** Waits until every entry added is written and the unread output is small. */
  const settled = async () => {
    while (!stopped) {
      setAside();
      if (entries.length === 0 && out.readableLength < OUTPUT_HIGH_WATER) return;
      await new Promise((r) => setTimeout(r, 5));
    }
  };
  /** yazl writes the central directory entry by entry and counts the entries in its end record. */
  const restoreDirectory = () => {
    const parts = directory.parts();
    let next = 0;
    const standIn: YazlEntry = {
      state: FILE_DATA_DONE,
      getCentralDirectoryRecord: () => parts[next++] ?? Buffer.alloc(0),
    };
    for (let i = 0; i < written; i++) entries.push(standIn);
  };
  const produce = (async () => {
    for await (const rows of deps.items.pages(job.id, { succeededOnly: true })) {
      const mediaIds = rows.map((r) => r.media_id).filter((m): m is string => m !== null);
      const media = await deps.media.ofJob(job, job.id, mediaIds);
      // Images moved to the certificates service: read back 16 at a time, once per hash.
      const moved = new Map<string, Buffer>();
      const shas = [
        ...new Set([...media.values()].flatMap((m) => (m.bytes ? [] : (m.archivedSha256 ?? [])))),
      ];
      for (let i = 0; deps.archive && i < shas.length; i += 16) {
        const part = shas.slice(i, i + 16);
        const got = await Promise.all(part.map((sha) => deps.archive!.get(sha)));
        part.forEach((sha, n) => moved.set(sha, got[n]!));
      }
      for (const r of rows) {
        const base = `${String(r.row_number).padStart(5, '0')}-${r.certificate_id}`;
        const meta = {
          row: r.row_number,
          certificateId: r.certificate_id,
          voucherId: r.voucher_id,
          referenceNumber: r.reference_number,
          voucherUrl: r.voucher_url,
          tokenId: r.token_id === null ? null : Number(r.token_id),
          transactionHash: r.transaction_hash,
          blockNumber: r.block_number === null ? null : Number(r.block_number),
          name: r.name,
          metadata: voucherMetadataOf(r.input),
        };
        await room();
        zip.addBuffer(Buffer.from(JSON.stringify(meta, null, 2)), `metadata/${base}.json`);
        const image = r.media_id ? media.get(r.media_id) : undefined;
        const bytes = image?.bytes ?? (image?.archivedSha256 ? moved.get(image.archivedSha256) : null);
        if (image && bytes) {
          await room();
          zip.addBuffer(bytes, `images/${base}.${EXT[image.contentType] ?? 'bin'}`);
        }
      }
      await settled();
      if (stopped) return;
    }
    await settled();
    if (stopped) return;
    restoreDirectory();
    zip.end();
  })();
  let failure: unknown = null;
  produce.catch((err: unknown) => {
    failure = err;
    out.destroy(err as Error);
  });
  try {
    // yazl writes each header, entry and descriptor as its own small buffer; sent one by
    // one they were ~150,000 gRPC messages for 50,000 entries. Gathered into 64 KB chunks.
    let parts: Buffer[] = [];
    let size = 0;
    for await (const chunk of out as AsyncIterable<Buffer>) {
      parts.push(chunk);
      size += chunk.length;
      if (size >= CHUNK) {
        yield Buffer.concat(parts, size);
        parts = [];
        size = 0;
      }
    }
    if (size > 0) yield Buffer.concat(parts, size);
  } catch (err) {
    throw failure ?? err;
  } finally {
    stopped = true;
  }
  if (failure) throw failure;
  await produce;
}
