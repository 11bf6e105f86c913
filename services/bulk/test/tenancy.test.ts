// Tenancy of bulk jobs and their images, on a real PostgreSQL database: another enterprise
// never reads, lists, exports, retries or cancels a job (404, not 403), and a download
// carries only its own job's images, even when an item names another job's medium. Restate
// is not running here: runs stay unsubmitted (the submitter's case), which these guarantees
// do not depend on.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createLogger, Encryptor, HallmarkError, newId, openDatabase, type Pool } from '@hallmark/kit';
import { closeTestDatabase, TEST_DATABASE_SERVER, uniqueDatabaseName } from '@hallmark/kit/testing';
import path from 'node:path';
import type { Scope } from '../src/domain/job.js';
import { ExportStore } from '../src/export-store.js';
import { MediaStore } from '../src/media-store.js';
import { BulkService } from '../src/service.js';
import { JobsStore } from '../src/store.js';
import { jobRuns } from '../src/workflows/submit.js';
import { buildZip, image } from './fixtures/files.js';

const database = uniqueDatabaseName('bulk');
let pool: Pool;
let media: MediaStore;
let service: BulkService;

const scope = (enterpriseId = newId('enterprise')): Scope => ({
  enterpriseId,
  livemode: true,
  actorId: newId('user'),
  actorType: 'user',
});

const CSV = Buffer.from(
  'name,description,category,recipientEmail,imageFile\nWatch,Numbered watch,Watches,jane@example.com,watch.png\n',
);

async function notFound(p: Promise<unknown>): Promise<void> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(HallmarkError);
  expect((err as HallmarkError).code).toBe('resource_not_found');
}

/** Marks the job's items minted, so downloads include them. */
async function succeed(jobId: string): Promise<void> {
  await pool.query(
    `UPDATE job_items SET status = 'success', certificate_id = 'cert_' || idx WHERE job_id = $1`,
    [jobId],
  );
}

async function csvJob(s: Scope) {
  const zip = await buildZip([{ name: 'watch.png', data: image.png('tenancy') }]);
  return (await service.createCsvJob(s, { csv: CSV, zip, createBatch: false })).job;
}

beforeAll(async () => {
  pool = await openDatabase({
    serverUrl: TEST_DATABASE_SERVER,
    database,
    migrationsDirs: [path.join(import.meta.dirname, '..', 'migrations')],
  });
  const jobs = new JobsStore(pool, new Encryptor(Encryptor.generateKey()));
  media = new MediaStore(pool);
  service = new BulkService({
    jobs,
    media,
    exports: { items: new ExportStore(pool) },
    ingress: jobRuns('http://127.0.0.1:9'),
    log: createLogger('bulk-test', 'silent'),
    syncMaxItems: 0,
    pricing: { unitPrice: 100, currency: 'USD', gasPerCertificate: 1, gasPerBatch: 1, batchSize: 100 },
  });
});

afterAll(async () => {
  await closeTestDatabase(pool, database);
});

describe('bulk tenancy', () => {
  it('another enterprise cannot read, list, export, retry or cancel a job: it is not found', async () => {
    const a = scope();
    const b = scope();
    const job = await csvJob(a);
    await notFound(service.getJob(b, job.id, true));
    await notFound(service.exportJob(b, job.id, 'csv'));
    await notFound(service.exportJob(b, job.id, 'zip'));
    await notFound(service.retryJob(b, job.id));
    await notFound(service.cancelJob(b, job.id));
    expect((await service.listJobs(b, {})).jobs).toEqual([]);
    // The same enterprise in the other mode does not see it either.
    await notFound(service.getJob({ ...a, livemode: false }, job.id, true));
    expect((await service.getJob(a, job.id, true)).job.id).toBe(job.id);
  });

  it('a download carries its own job’s images only, even when an item names another job’s medium', async () => {
    const a = scope();
    const b = scope();
    const jobA = await csvJob(a);
    const jobB = await csvJob(b);
    const { rows } = await pool.query<{ job_id: string; media_id: string }>(
      'SELECT job_id, media_id FROM job_items WHERE job_id = ANY($1)',
      [[jobA.id, jobB.id]],
    );
    const mediumOf = (jobId: string) => rows.find((r) => r.job_id === jobId)!.media_id;
    expect(mediumOf(jobA.id)).toMatch(/^med_/);

    await succeed(jobA.id);
    const own = await contentOf(service.exportJob(a, jobA.id, 'zip'));
    expect(own.includes('images/')).toBe(true);

    // B's item is pointed at A's image: B's download must not carry it.
    await pool.query('UPDATE job_items SET media_id = $2 WHERE job_id = $1', [jobB.id, mediumOf(jobA.id)]);
    await succeed(jobB.id);
    const other = await contentOf(service.exportJob(b, jobB.id, 'zip'));
    expect(other.includes('images/')).toBe(false);

    expect((await media.ofJob(b, jobA.id, [mediumOf(jobA.id)])).size).toBe(0);
    expect((await media.ofJob(a, jobB.id, [mediumOf(jobA.id)])).size).toBe(0);
    expect((await media.ofJob(a, jobA.id, [mediumOf(jobA.id)])).size).toBe(1);
  });

  it('a medium is public by its id alone (the certificate image URL); an unknown id is not found', async () => {
    const job = await csvJob(scope());
    const { rows } = await pool.query<{ media_id: string }>(
      'SELECT media_id FROM job_items WHERE job_id = $1',
      [job.id],
    );
    const m = await service.getMedia(rows[0]!.media_id);
    expect(m.contentType).toBe('image/png');
    await notFound(service.getMedia(`med_${'x'.repeat(24)}`));
  });
});

/** A download's bytes, read through. */
async function contentOf(d: Promise<{ chunks: AsyncIterable<Buffer> }>): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const c of (await d).chunks) parts.push(c);
  return Buffer.concat(parts);
}
