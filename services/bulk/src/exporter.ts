// Result downloads: the CSV (the spec's columns, formula cells neutralised) and the ZIP (each
// succeeded certificate's metadata JSON and, for images uploaded in a ZIP, the image). Rows
// are read in pages so a 50,000-row job never sits in memory as objects at once.
import type { Pool } from '@hallmark/kit';
import yazl from 'yazl';
import { resultCsvHeader, resultCsvLine } from './domain/export.js';
import { voucherMetadataOf, type JobRecord } from './domain/job.js';
import type { JobsStore } from './store.js';

const PAGE = 2000;

interface ExportRow {
  idx: number;
  row_number: number;
  name: string;
  status: string;
  certificate_id: string | null;
  voucher_id: string | null;
  reference_number: string | null;
  voucher_url: string | null;
  recipient_email: string | null;
  error: string | null;
  input: Record<string, unknown>;
  media_id: string | null;
  token_id: string | null;
  transaction_hash: string | null;
  block_number: string | null;
}

async function* pages(pool: Pool, jobId: string, where = 'true'): AsyncGenerator<ExportRow[]> {
  let after = -1;
  for (;;) {
    const { rows } = await pool.query<ExportRow>(
      `SELECT idx, row_number, name, status, certificate_id, voucher_id, reference_number, voucher_url,
              recipient_email, error, input, media_id, token_id, transaction_hash, block_number
         FROM job_items WHERE job_id = $1 AND idx > $2 AND ${where} ORDER BY idx LIMIT $3`,
      [jobId, after, PAGE],
    );
    if (rows.length === 0) return;
    yield rows;
    after = rows[rows.length - 1]!.idx;
  }
}

/** Item status as the download names it: success, failed, or pending while still running. */
const downloadStatus = (s: string) => (s === 'success' ? 'success' : s === 'pending' ? 'pending' : 'failed');

export async function exportCsv(jobs: JobsStore, job: JobRecord): Promise<Buffer> {
  const parts: string[] = [resultCsvHeader()];
  for await (const rows of pages(jobs.pool, job.id)) {
    for (const r of rows) {
      parts.push(
        resultCsvLine({
          row: r.row_number,
          name: r.name,
          status: downloadStatus(r.status),
          certificateId: r.certificate_id,
          voucherId: r.voucher_id,
          referenceNumber: r.reference_number,
          recipientEmail: jobs.decrypt(r.recipient_email),
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

export async function exportZip(jobs: JobsStore, job: JobRecord): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  const chunks: Buffer[] = [];
  const done = new Promise<Buffer>((resolve, reject) => {
    zip.outputStream.on('data', (c: Buffer) => chunks.push(c));
    zip.outputStream.on('end', () => resolve(Buffer.concat(chunks)));
    zip.outputStream.on('error', reject);
  });
  for await (const rows of pages(jobs.pool, job.id, "status = 'success'")) {
    const mediaIds = rows.map((r) => r.media_id).filter((m): m is string => m !== null);
    const media = new Map<string, { content_type: string; bytes: Buffer }>();
    if (mediaIds.length > 0) {
      const { rows: found } = await jobs.pool.query<{ id: string; content_type: string; bytes: Buffer }>(
        'SELECT id, content_type, bytes FROM media WHERE id = ANY($1::text[])',
        [mediaIds],
      );
      for (const m of found) media.set(m.id, m);
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
      if (image) zip.addBuffer(image.bytes, `images/${base}.${EXT[image.content_type] ?? 'bin'}`);
    }
  }
  zip.end();
  return done;
}
