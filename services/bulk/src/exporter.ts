// Result downloads: the CSV (the spec's columns, formula cells neutralised) and the ZIP (each
// succeeded certificate's metadata JSON and, for images uploaded in a ZIP, the image). Rows
// are read in pages (export-store.ts) so a 50,000-row job never sits in memory at once.
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
  const parts: string[] = [resultCsvHeader()];
  for await (const rows of deps.items.pages(job.id)) {
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
  }
  return Buffer.from(parts.join(''), 'utf8');
}

const EXT: Record<string, string> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/webp': 'webp',
  'image/gif': 'gif',
};

export async function exportZip(deps: ExportDeps, job: JobRecord): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  const chunks: Buffer[] = [];
  const done = new Promise<Buffer>((resolve, reject) => {
    zip.outputStream.on('data', (c: Buffer) => chunks.push(c));
    zip.outputStream.on('end', () => resolve(Buffer.concat(chunks)));
    zip.outputStream.on('error', reject);
  });
  for await (const rows of deps.items.pages(job.id, { succeededOnly: true })) {
    const mediaIds = rows.map((r) => r.media_id).filter((m): m is string => m !== null);
    const media = await deps.media.ofJob(job, job.id, mediaIds);
    // Images moved to the certificates service: read back 16 at a time, once per hash.
    const moved = new Map<string, Buffer>();
    const shas = [...new Set([...media.values()].flatMap((m) => (m.bytes ? [] : (m.archivedSha256 ?? []))))];
    for (let i = 0; deps.archive && i < shas.length; i += 16) {
      const part = shas.slice(i, i + 16);
      const got = await Promise.all(part.map((h) => deps.archive!.get(h)));
      part.forEach((h, k) => moved.set(h, got[k]!));
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
      zip.addBuffer(Buffer.from(JSON.stringify(meta, null, 2)), `metadata/${base}.json`);
      const image = r.media_id ? media.get(r.media_id) : undefined;
      const bytes = image?.bytes ?? (image?.archivedSha256 ? moved.get(image.archivedSha256) : null);
      if (image && bytes) zip.addBuffer(bytes, `images/${base}.${EXT[image.contentType] ?? 'bin'}`);
    }
  }
  zip.end();
  return done;
}
