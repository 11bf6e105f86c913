// Result downloads: the CSV (the spec's columns, formula cells neutralised) and the ZIP (each
// succeeded certificate's metadata JSON and, for images uploaded in a ZIP, the image). Rows
// are read in keyset pages (export-store.ts) and the file goes out as chunks while it is
// made (`csvChunks`, `zipChunks`: ExportJobStream), the next page read only once the
// previous one is written, so a 50,000-row job never sits in memory at once.
import { resultCsvHeader, resultCsvLine } from './domain/export.js';
import { voucherMetadataOf, type JobRecord } from './domain/job.js';
import { ZipWriter } from './domain/zip-writer.js';
import type { ExportRow, ExportStore } from './export-store.js';
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

/** Rows whose images are in memory at once (read from the database or certificates together). */
const IMAGE_ROWS = 16;

/**
 * The ZIP download as it is made (zip-writer.ts), in memory about one page of items and the
 * images of IMAGE_ROWS rows however large the job (a page of 2,000 rows' images at once could
 * be the upload's whole 200 MB): a chunk is made only when the reader asks for the next one
 * (an async generator runs no further than its last yield), so nothing queues ahead of a
 * slow reader.
 */
export async function* zipChunks(deps: ExportDeps, job: JobRecord): AsyncGenerator<Buffer> {
  const zip = new ZipWriter(job.completedAt ?? job.updatedAt);
  for await (const page of deps.items.pages(job.id, { succeededOnly: true })) {
    for (let from = 0; from < page.length; from += IMAGE_ROWS) {
      const rows = page.slice(from, from + IMAGE_ROWS);
      const images = await imagesOf(deps, job, rows);
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
        zip.add(`metadata/${base}.json`, JSON.stringify(meta, null, 2), { compress: true });
        const image = r.media_id ? images.get(r.media_id) : undefined;
        // PNG, JPEG, WebP and GIF are compressed already: stored, not deflated again.
        if (image)
          zip.add(`images/${base}.${EXT[image.contentType] ?? 'bin'}`, image.bytes, { compress: false });
        yield* zip.take();
      }
    }
  }
  yield* zip.end();
}

/** The rows' ZIP images by media id: held here, or moved to certificates (read back once per hash). */
async function imagesOf(
  deps: ExportDeps,
  job: JobRecord,
  rows: ExportRow[],
): Promise<Map<string, { contentType: string; bytes: Buffer }>> {
  const out = new Map<string, { contentType: string; bytes: Buffer }>();
  const mediaIds = rows.map((r) => r.media_id).filter((m): m is string => m !== null);
  if (mediaIds.length === 0) return out;
  const media = await deps.media.ofJob(job, job.id, mediaIds);
  const shas = [...new Set([...media.values()].flatMap((m) => (m.bytes ? [] : (m.archivedSha256 ?? []))))];
  const moved = new Map<string, Buffer>();
  if (deps.archive) {
    const got = await Promise.all(shas.map((sha) => deps.archive!.get(sha)));
    shas.forEach((sha, n) => moved.set(sha, got[n]!));
  }
  for (const [id, m] of media) {
    const bytes = m.bytes ?? (m.archivedSha256 ? moved.get(m.archivedSha256) : undefined);
    if (bytes) out.set(id, { contentType: m.contentType, bytes });
  }
  return out;
}
