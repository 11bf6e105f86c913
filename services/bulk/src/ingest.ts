// Creating jobs: the CSV upload (rows streamed from csv-parse, images streamed from the ZIP)
// and the JSON order form. Everything of a job — the job row, every item, every image and the
// document.uploaded event — is written in one transaction: a file refused half-way leaves
// nothing behind. The run is submitted to Restate after the commit.
import { HallmarkError, invalidParam, newId, randomBase62, transaction, type Queryable } from '@hallmark/kit';
import { checkCsvSize, parseCsv } from './domain/csv.js';
import type { JobRecord, Scope } from './domain/job.js';
import { idempotencyKeyProblem, parseOrderForm } from './domain/order.js';
import { matchImage, readZipImages, ZIP_MAX_BYTES } from './domain/zip.js';
import type { MediaArchive } from './media-archive.js';
import type { MediaStore } from './media-store.js';
import { conflictOf, type JobsStore, type NewItem } from './store.js';

const CHUNK = 1000;
/** ZIP images handed to the certificates service at once. */
const ARCHIVE_CONCURRENCY = 8;
export const MAX_JOB_ITEMS = 50_000;

interface StoredImage {
  mediaId: string;
  sha256: string;
  contentType: string;
  /** In the certificates service's store, served at /media/<sha256>. */
  archived: boolean;
}

export class JobCreator {
  constructor(
    private readonly jobs: JobsStore,
    private readonly media: MediaStore,
    /** The certificates service's store; without it images stay here (tests of bulk alone). */
    private readonly archive?: MediaArchive,
  ) {}

  async createCsvJob(
    scope: Scope,
    input: { csv: Buffer; zip?: Buffer; createBatch: boolean; csvFilename?: string },
  ): Promise<JobRecord> {
    if (input.csv.length === 0) throw invalidParam('metadata', 'The CSV file is empty.');
    checkCsvSize(input.csv.length);
    if (input.zip && input.zip.length > ZIP_MAX_BYTES) {
      throw invalidParam('images', `The images ZIP is larger than ${ZIP_MAX_BYTES / 1024 / 1024} MB.`);
    }
    const id = newId('job');
    await transaction(this.jobs.pool, async (tx) => {
      await this.jobs.insertJob(tx, {
        id,
        scope,
        form: 'csv',
        createBatch: input.createBatch,
        csvFilename: input.csvFilename ?? null,
      });
      const images = input.zip ? await this.storeImages(tx, scope, id, input.zip) : null;
      let chunk: NewItem[] = [];
      let idx = 0;
      const identities = new Map<string, number>();
      for await (const parsed of parseCsv(input.csv, { hasZip: images !== null, maxRows: MAX_JOB_ITEMS })) {
        chunk.push(onceEach(csvItem(idx++, parsed, images), identities));
        if (chunk.length >= CHUNK) {
          await this.jobs.insertItems(tx, id, chunk);
          chunk = [];
        }
      }
      if (chunk.length > 0) await this.jobs.insertItems(tx, id, chunk);
      const job = await this.jobs.get(scope, id, tx);
      if (job.totalCount === 0) throw invalidParam('metadata', 'The CSV file has a header but no rows.');
      await this.jobs.recordUploaded(tx, job);
    });
    return this.jobs.get(scope, id);
  }

  /**
   * Stores each ZIP image (streamed entry by entry) and indexes it by file name and stem. With
   * the certificates service's store, up to ARCHIVE_CONCURRENCY entries are handed over at once
   * (a 1,000-image ZIP must fit in the request's deadline); the index keeps the ZIP's order.
   */
  private async storeImages(tx: Queryable, scope: Scope, jobId: string, zip: Buffer) {
    const stored: { key: string; stem: string; image: Promise<StoredImage> }[] = [];
    const inFlight = new Set<Promise<unknown>>();
    for await (const img of readZipImages(zip)) {
      const mediaId = `med_${randomBase62(24)}`;
      const image = (async (): Promise<StoredImage> => {
        // Handed to certificates (streamed; GPS stripped there): the item shows Hallmark's copy.
        const archived = this.archive ? await this.archive.put(img.bytes, { aliasId: mediaId }) : null;
        const s: StoredImage = {
          mediaId,
          sha256: archived?.sha256 ?? img.sha256,
          contentType: archived?.contentType ?? img.contentType,
          archived: archived !== null,
        };
        await this.media.insert(tx, scope, jobId, {
          id: mediaId,
          path: img.path,
          contentType: s.contentType,
          sha256: img.sha256,
          bytes: archived ? null : img.bytes,
          archivedSha256: archived?.sha256 ?? null,
        });
        return s;
      })();
      const tracked = image.finally(() => inFlight.delete(tracked));
      tracked.catch(() => undefined);
      inFlight.add(tracked);
      stored.push({ key: img.key, stem: img.stem, image });
      if (inFlight.size >= ARCHIVE_CONCURRENCY) await Promise.race(inFlight);
    }
    const byKey = new Map<string, StoredImage>();
    const byStem = new Map<string, StoredImage>();
    for (const { key, stem, image } of stored) {
      const s = await image;
      if (!byKey.has(key)) byKey.set(key, s);
      if (!byStem.has(stem)) byStem.set(stem, s);
    }
    return { byKey, byStem };
  }

  async createOrderJob(scope: Scope, idempotencyKey: string, bodyJson: string): Promise<JobRecord> {
    let body: unknown;
    try {
      body = JSON.parse(bodyJson);
    } catch {
      throw new HallmarkError('malformed_json', { message: 'The request body is not valid JSON.' });
    }
    const form = parseOrderForm(body, { maxItems: MAX_JOB_ITEMS });
    // The key names this order: {shop}#{orderId}#{lineItemGid}#{random_hash}.
    const keyProblem = idempotencyKeyProblem(idempotencyKey, form.externalContext);
    if (keyProblem) throw invalidParam('Idempotency-Key', keyProblem);
    const existing = await this.jobs.byIdempotencyKey(scope, idempotencyKey);
    if (existing) throw conflictOf(existing);
    const customer = form.externalContext.customer;
    const recipientName = [customer?.firstName, customer?.lastName].filter(Boolean).join(' ') || null;
    const id = newId('job');
    try {
      await transaction(this.jobs.pool, async (tx) => {
        await this.jobs.insertJob(tx, {
          id,
          scope,
          form: 'order',
          idempotencyKey,
          externalContext: form.externalContext,
        });
        for (let i = 0; i < form.items.length; i += CHUNK) {
          const items = form.items.slice(i, i + CHUNK).map((item): NewItem => ({
            idx: item.index,
            row: item.index + 1,
            name: String(item.metadata.name),
            error: null,
            input: { metadata: item.metadata, lineItemGid: item.lineItemGid, expiryDays: 30 },
            recipientEmail: customer?.email ?? null,
            recipientName,
          }));
          await this.jobs.insertItems(tx, id, items);
        }
      });
    } catch (err) {
      // A concurrent duplicate lost the race on the unique index: answer its job.
      if ((err as { code?: string }).code === '23505') {
        const winner = await this.jobs.byIdempotencyKey(scope, idempotencyKey);
        if (winner) throw conflictOf(winner);
      }
      throw err;
    }
    return this.jobs.get(scope, id);
  }
}

/**
 * A row whose GTIN and serial an earlier row of the file has fails, naming that row: one
 * (GTIN, serial) is one certificate, and a batch holding it twice would be refused whole.
 */
function onceEach(item: NewItem, seen: Map<string, number>): NewItem {
  const { gtin, serial } = item.input as { gtin?: string; serial?: string };
  if (item.error !== null || !gtin || !serial) return item;
  const key = `${gtin}/${serial}`;
  const first = seen.get(key);
  if (first === undefined) {
    seen.set(key, item.row);
    return item;
  }
  return {
    ...item,
    error: `gtin ${gtin} and serial ${JSON.stringify(serial)} are those of row ${first} already`,
  };
}

type Parsed = Awaited<ReturnType<ReturnType<typeof parseCsv>['next']>>['value'];

/** One CSV row as a job item: valid rows keep their fields; bad rows keep their error. */
function csvItem(
  idx: number,
  parsed: NonNullable<Parsed>,
  images: { byKey: Map<string, StoredImage>; byStem: Map<string, StoredImage> } | null,
): NewItem {
  if (!parsed.ok) {
    return {
      idx,
      row: parsed.row,
      name: parsed.name ?? '',
      error: parsed.error,
      input: { fields: parsed.fields ?? {} },
      recipientEmail: parsed.recipientEmail ?? null,
    };
  }
  const r = parsed.value;
  let image: StoredImage | undefined;
  if (images && (r.imageFile || !r.imageUrl)) {
    image = matchImage({ row: r.row, name: r.name, imageFile: r.imageFile }, images);
    if (!image) {
      const error = r.imageFile
        ? `No image named ${r.imageFile} in the ZIP.`
        : `No image for this row in the ZIP (looked for ${r.row}.png/.jpg/.webp and the name) and no imageUrl.`;
      return { idx, row: r.row, name: r.name, error, input: {}, recipientEmail: r.recipientEmail };
    }
  }
  return {
    idx,
    row: r.row,
    name: r.name,
    error: null,
    input: {
      name: r.name,
      description: r.description,
      category: r.category,
      imageUrl: image ? undefined : r.imageUrl,
      attributes: r.attributes,
      expiryDays: r.expiryDays,
      ...(r.gtin && r.serial ? { gtin: r.gtin, serial: r.serial } : {}),
      ...(r.passportUrl ? { passportUrl: r.passportUrl } : {}),
      ...(image
        ? { imageSha256: image.sha256, imageContentType: image.contentType, imageArchived: image.archived }
        : {}),
    },
    recipientEmail: r.recipientEmail,
    recipientName: r.recipientName ?? null,
    mediaId: image?.mediaId ?? null,
  };
}
