// Results of a large job in flat memory, on a real PostgreSQL database: the status's vouchers
// come in keyset pages that cover every voucher once, in item order (a bad cursor is a 400);
// StreamJobVouchers' pages and the streamed CSV download read the same items page by page;
// another enterprise's job is not found on either path.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createLogger, Encryptor, HallmarkError, newId, openDatabase, type Pool } from '@hallmark/kit';
import { closeTestDatabase, TEST_DATABASE_SERVER, uniqueDatabaseName } from '@hallmark/kit/testing';
import path from 'node:path';
import yauzl from 'yauzl';
import type { Scope } from '../src/domain/job.js';
import { ExportStore } from '../src/export-store.js';
import { MediaStore } from '../src/media-store.js';
import { BulkService } from '../src/service.js';
import { JobsStore } from '../src/store.js';
import { jobRuns } from '../src/workflows/submit.js';

const ROWS = 2_500;
const database = uniqueDatabaseName('bulk');
let pool: Pool;
let service: BulkService;
let owner: Scope;
let jobId: string;

const scope = (): Scope => ({
  enterpriseId: newId('enterprise'),
  livemode: true,
  actorId: newId('user'),
  actorType: 'user',
});

async function refusal(p: Promise<unknown>): Promise<HallmarkError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(HallmarkError);
  return err as HallmarkError;
}

beforeAll(async () => {
  pool = await openDatabase({
    serverUrl: TEST_DATABASE_SERVER,
    database,
    migrationsDirs: [path.join(import.meta.dirname, '..', 'migrations')],
  });
  service = new BulkService({
    jobs: new JobsStore(pool, new Encryptor(Encryptor.generateKey())),
    media: new MediaStore(pool),
    exports: { items: new ExportStore(pool) },
    ingress: jobRuns('http://127.0.0.1:9'),
    log: createLogger('bulk-test', 'silent'),
    syncMaxItems: 0,
    pricing: { unitPrice: 100, currency: 'USD', gasPerCertificate: 1, gasPerBatch: 1, batchSize: 100 },
  });
  owner = scope();
  const lines = ['name,description,category,recipientEmail,imageUrl'];
  for (let i = 1; i <= ROWS; i++)
    lines.push(`Watch ${i},No. ${i},Watches,o${i}@example.com,https://img.test/${i}.png`);
  const { job } = await service.createCsvJob(owner, {
    csv: Buffer.from(lines.join('\n')),
    createBatch: false,
  });
  jobId = job.id;
  await pool.query(
    `UPDATE job_items SET status = 'success', certificate_id = 'cert_' || idx, voucher_id = 'v_' || idx,
       voucher_url = 'https://h.test/v/' || idx, reference_number = 'REF-' || idx WHERE job_id = $1`,
    [jobId],
  );
  await pool.query(`UPDATE jobs SET status = 'completed', completed_at = now() WHERE id = $1`, [jobId]);
}, 120_000);

afterAll(async () => {
  await closeTestDatabase(pool, database);
});

describe('results of a large job, page by page', () => {
  it('status pages cover every voucher once, in item order, and the last page names no next one', async () => {
    const seen: number[] = [];
    let after = '';
    let pages = 0;
    for (;;) {
      const view = await service.getJob(owner, jobId, true, { limit: 1000, after });
      pages++;
      seen.push(...view.vouchers!.map((v) => v.row));
      if (!view.nextVouchersAfter) break;
      after = view.nextVouchersAfter;
    }
    expect(pages).toBe(3);
    expect(seen).toEqual(Array.from({ length: ROWS }, (_, i) => i + 1));
    expect((await refusal(service.getJob(owner, jobId, true, { limit: 10, after: 'x' }))).param).toBe(
      'vouchersCursor',
    );
    expect((await refusal(service.getJob(owner, jobId, true, { limit: 1001, after: '' }))).param).toBe(
      'vouchersLimit',
    );
  });

  it('StreamJobVouchers pages and the streamed CSV read every item, a page at a time', async () => {
    const sizes: number[] = [];
    for await (const page of service.jobVoucherPages(owner, jobId)) sizes.push(page.length);
    expect(sizes).toEqual([1000, 1000, 500]);

    const download = await service.exportJob(owner, jobId, 'csv');
    const chunks: Buffer[] = [];
    for await (const c of download.chunks) chunks.push(c);
    expect(chunks.length).toBeGreaterThan(2); // the header, then one chunk per page
    const text = Buffer.concat(chunks).toString('utf8');
    expect(text.trimEnd().split('\r\n')).toHaveLength(ROWS + 1);
  });

  it("the streamed ZIP holds every item's metadata once, in item order, each entry reading back", async () => {
    const download = await service.exportJob(owner, jobId, 'zip');
    const chunks: Buffer[] = [];
    for await (const c of download.chunks) chunks.push(c);
    const entries = await new Promise<{ name: string; json: { row: number; certificateId: string } }[]>(
      (resolve, reject) =>
        yauzl.fromBuffer(Buffer.concat(chunks), { lazyEntries: true }, (err, zip) => {
          if (err) return reject(err);
          const out: { name: string; json: { row: number; certificateId: string } }[] = [];
          zip.on('error', reject).on('end', () => resolve(out));
          zip.on('entry', (entry: yauzl.Entry) =>
            zip.openReadStream(entry, (e, stream) => {
              if (e) return reject(e);
              const parts: Buffer[] = [];
              stream.on('data', (b: Buffer) => parts.push(b));
              stream.on('end', () => {
                out.push({ name: entry.fileName, json: JSON.parse(Buffer.concat(parts).toString('utf8')) });
                zip.readEntry();
              });
            }),
          );
          zip.readEntry();
        }),
    );
    expect(entries).toHaveLength(ROWS);
    entries.forEach((e, i) => {
      expect(e.json.row).toBe(i + 1);
      expect(e.name).toBe(`metadata/${String(i + 1).padStart(5, '0')}-${e.json.certificateId}.json`);
    });
  });

  it("another enterprise's job is not found on the streamed paths", async () => {
    const stranger = scope();
    const pages = (async () => {
      for await (const _ of service.jobVoucherPages(stranger, jobId)) void _;
    })();
    expect((await refusal(pages)).code).toBe('resource_not_found');
    expect((await refusal(service.exportJob(stranger, jobId, 'zip'))).code).toBe('resource_not_found');
  });
});
