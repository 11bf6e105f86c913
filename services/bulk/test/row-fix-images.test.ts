// Fixing a row in place finds its image in the job's kept ZIP images as the upload did, on a
// real PostgreSQL database with a real CSV + ZIP job: a row that named its image by
// `imageFile` was refused ("No image for row … set imageUrl") though the file was kept.
// Restate is not running here: the job is marked finished by hand, as a run would leave it.
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
let service: BulkService;

const scope: Scope = {
  enterpriseId: newId('enterprise'),
  livemode: true,
  actorId: newId('user'),
  actorType: 'user',
};

// Row 2 names its image by imageFile and is invalid (its e-mail); row 3 names a file the ZIP lacks.
const CSV = Buffer.from(
  'name,description,category,recipientEmail,imageFile\n' +
    'Watch,Numbered watch,Watches,jane@example.com,watch.png\n' +
    'Ring,Gold ring,Rings,not-an-email,photos/ring-photo.PNG\n' +
    'Pen,Fountain pen,Pens,not-an-email,pen.png\n',
);

async function finishedJob(): Promise<string> {
  const zip = await buildZip([
    { name: 'watch.png', data: image.png('watch') },
    { name: 'ring-photo.png', data: image.png('ring') },
  ]);
  const { job } = await service.createCsvJob(scope, { csv: CSV, zip, createBatch: false });
  await pool.query(`UPDATE jobs SET status = 'completed' WHERE id = $1`, [job.id]);
  return job.id;
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
});

afterAll(async () => {
  await closeTestDatabase(pool, database);
});

describe('fixing a row whose image was named by imageFile', () => {
  it('finds that file among the job’s kept ZIP images and attaches it, as the upload would have', async () => {
    const jobId = await finishedJob();
    const fixed = await service.fixItem(scope, jobId, 2, { recipientEmail: 'ada@example.com' });
    expect(fixed).toMatchObject({ row: 2, name: 'Ring', status: 'failed' });
    const { rows } = await pool.query<{ path: string; input: Record<string, unknown> }>(
      `SELECT m.path, i.input FROM job_items i JOIN media m ON m.id = i.media_id
        WHERE i.job_id = $1 AND i.row_number = 2`,
      [jobId],
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]!.path).toMatch(/ring-photo\.png$/i);
    expect(rows[0]!.input).toMatchObject({ name: 'Ring', imageContentType: 'image/png' });
    expect(rows[0]!.input.imageUrl).toBeUndefined();
  });

  it('a named file the ZIP lacks is a 400 naming that file, and nothing is written', async () => {
    const jobId = await finishedJob();
    const before = await pool.query('SELECT * FROM job_items WHERE job_id = $1 AND row_number = 3', [jobId]);
    const err = await service.fixItem(scope, jobId, 3, { recipientEmail: 'ada@example.com' }).catch((e) => e);
    expect(err).toBeInstanceOf(HallmarkError);
    expect(err).toMatchObject({ code: 'parameter_invalid', param: 'imageUrl' });
    expect((err as HallmarkError).message).toContain('pen.png');
    const after = await pool.query('SELECT * FROM job_items WHERE job_id = $1 AND row_number = 3', [jobId]);
    expect(after.rows).toEqual(before.rows);
  });
});
