// The side effects of one bulk-job run, each one a Restate `ctx.run` step of the workflow
// (bulk-job.ts). Every step is safe to repeat: a repeated step finds its own earlier writes
// (items taken under the batch key, results recorded only for still-pending items) and calls
// the certificates service with the same idempotency keys, so it mints and creates nothing
// twice. Domain refusals are recorded on the batch's items and end the step normally;
// transport failures throw, and Restate retries the step.
import { counter, HallmarkError, type AsyncClient, type Logger } from '@hallmark/kit';
import type { CertificatesServiceClient, MintItem } from '@hallmark/proto/certificates/v1/certificates';
import type { CertificateVoucherServiceClient, VoucherItem } from '@hallmark/proto/certificates/v1/vouchers';
import type { Principal } from '@hallmark/proto/common/v1/common';
import { isFinished, voucherMetadataOf, type JobRecord } from '../domain/job.js';
import type { BatchesStore, BatchItem, ItemResult } from '../batches-store.js';
import type { JobsStore } from '../store.js';

export interface StepDeps {
  jobs: JobsStore;
  batches: BatchesStore;
  certificates: AsyncClient<CertificatesServiceClient>;
  vouchers: AsyncClient<CertificateVoucherServiceClient>;
  /**
   * Archives an image URL with the certificates service (fetched once through its outbound
   * guard, stored content-addressed); throws an Error whose message a customer can read.
   * Unset (HALLMARK_BULK_FETCH_IMAGES=false): the merchant's URL is hot-linked as given.
   */
  archiveImage?: (url: string) => Promise<{ sha256: string; contentType: string }>;
  publicUrl: string;
  batchSize: number;
  log: Logger;
}

export type StartResult = { run: true } | { run: false; status: string };
/** A submitted batch: `batchId` null when its items failed before minting (or it was empty). */
export type MintResult =
  { done: true; cancelled: boolean } | { done: false; key: string; batchId: string | null };

type ImageRef = { sha256: string | null; contentType: string | null; error: string | null };

/** Image URLs fetched at once while a batch is prepared. */
const IMAGE_CONCURRENCY = 16;

/** Certificates refuses a metadata object larger than this (JSON bytes). */
const MAX_METADATA_JSON = 16_000;

const principalOf = (job: JobRecord): Principal => ({
  enterprise_id: job.enterpriseId,
  livemode: job.livemode,
  actor_id: job.actorId,
  actor_type: job.actorType,
  scopes: [],
});

/** A refusal that repeating cannot change (bad input, conflict): recorded, not retried. */
export const isDomainRefusal = (err: unknown): err is HallmarkError =>
  err instanceof HallmarkError && err.httpStatus >= 400 && err.httpStatus < 500 && err.httpStatus !== 429;

/**
 * A failure of one of our own dependencies (certificates unreachable, its store failing): not
 * the item's fault and gone once the dependency is back. It fails the whole step, which Restate
 * retries with backoff, instead of failing the items (a short outage once failed every item
 * of a batch, and a paid order whose items all failed was never fulfilled).
 */
class DependencyDown extends Error {
  constructor(readonly reason: unknown) {
    super((reason as Error).message);
    this.name = 'DependencyDown';
  }
}

/** Items of bulk jobs processed, by outcome (its rate is the items/s of the pipeline). */
const itemsProcessed = () =>
  counter(
    'hallmark_bulk_items_processed_total',
    'Bulk job items processed, by outcome (success, failed)',
    ['outcome'],
    { known: [{ outcome: 'success' }, { outcome: 'failed' }] },
  );

const counted = (outcome: 'success' | 'failed') => (n: number) => {
  if (n > 0) itemsProcessed().inc({ outcome }, n);
  return n;
};

export class JobSteps {
  constructor(private readonly d: StepDeps) {
    itemsProcessed(); // every outcome at 0 from the first scrape
  }

  private async job(jobId: string): Promise<JobRecord> {
    const job = await this.d.jobs.byId(jobId);
    if (!job) throw new HallmarkError('resource_not_found', { message: `No such job: ${jobId}` });
    return job;
  }

  async start(jobId: string, pass: number): Promise<StartResult> {
    const job = await this.d.batches.start(jobId, pass);
    if (!job) return { run: false, status: 'missing' };
    if (job.pass !== pass || job.status !== 'processing') return { run: false, status: job.status };
    return { run: true };
  }

  /**
   * Takes the next batch of pending items under `key` and submits it to MintBatch. Answers
   * `done` when nothing is left (or the job was cancelled: checked between batches).
   */
  async mint(jobId: string, key: string): Promise<MintResult> {
    const job = await this.job(jobId);
    if (job.status === 'cancelled') return { done: true, cancelled: true };
    if (isFinished(job.status)) return { done: true, cancelled: false };
    const items = await this.d.batches.claim(jobId, key, this.d.batchSize);
    if (items.length === 0) return { done: true, cancelled: false };
    const prepared = await this.prepare(jobId, key, items);
    if (prepared.length === 0) return { done: false, key, batchId: null };
    try {
      const res = await this.d.certificates.mintBatch(
        {
          principal: principalOf(job),
          idempotency_key: key,
          holder_address: '',
          holder_account: { kind: 'enterprise', id: '' },
          items: prepared.map((p) => p.mint),
          // Only the batch id is used: the certificates are read at `complete`, minted.
          status_only: true,
        },
        { deadlineMs: 60_000, idempotent: true },
      );
      return { done: false, key, batchId: res.batch_id };
    } catch (err) {
      if (!isDomainRefusal(err)) throw err;
      await this.d.batches.recordFailure(jobId, key, `Minting refused: ${err.message}`);
      return { done: false, key, batchId: null };
    }
  }

  /**
   * The MintBatch items of a batch (item order). Items whose image cannot be fetched or whose
   * metadata is too large fail here, before the call, and are left out of it — the same way
   * on every repeat, because fetched images are kept per job and failures are recorded first.
   */
  private async prepare(jobId: string, key: string, items: BatchItem[]) {
    const failures: { idx: number; error: string }[] = [];
    const ready: ({ item: BatchItem; mint: MintItem } | null)[] = new Array(items.length).fill(null);
    // One fetch per distinct image URL per batch attempt (kept per job once it succeeded),
    // IMAGE_CONCURRENCY at a time; the batch keeps the items' order whatever finishes first.
    const images = new Map<string, Promise<ImageRef>>();
    let next = 0;
    const worker = async () => {
      for (let i = next++; i < items.length; i = next++) {
        const item = items[i]!;
        try {
          ready[i] = { item, mint: await this.mintItemOf(jobId, item, images) };
        } catch (err) {
          if (err instanceof DependencyDown) throw err.reason;
          failures.push({ idx: item.idx, error: (err as Error).message });
        }
      }
    };
    await Promise.all(Array.from({ length: IMAGE_CONCURRENCY }, worker));
    await this.d.batches.failItems(jobId, key, failures);
    return ready.filter((r): r is { item: BatchItem; mint: MintItem } => r !== null);
  }

  private async mintItemOf(
    jobId: string,
    item: BatchItem,
    images: Map<string, Promise<ImageRef>>,
  ): Promise<MintItem> {
    const input = item.input;
    const base = (input.metadata as Record<string, unknown> | undefined) ?? {};
    const { name: _n, description: _d, imageUrl: _i, ...custom } = base;
    const extra: Record<string, unknown> = { ...custom };
    if (Array.isArray(input.attributes) && input.attributes.length > 0) extra.attributes = input.attributes;
    if (typeof input.passportUrl === 'string') extra.passportUrl = input.passportUrl;
    let imageUrl = (input.imageUrl as string | undefined) ?? (base.imageUrl as string | undefined);
    if (item.mediaId) {
      const key = input.imageArchived ? (input.imageSha256 as string) : item.mediaId;
      imageUrl = new URL(`/media/${key}`, this.d.publicUrl).toString();
      extra.image = { sha256: input.imageSha256, contentType: input.imageContentType };
    } else if (imageUrl && this.d.archiveImage) {
      const url = imageUrl;
      let pending = images.get(url);
      if (!pending) {
        const archiveImage = this.d.archiveImage;
        pending = this.d.batches.imageOf(jobId, url, async () => {
          try {
            return await archiveImage(url);
          } catch (err) {
            // The merchant's image broke a rule or could not be fetched: that item's failure.
            if (err instanceof HallmarkError && !isDomainRefusal(err)) throw new DependencyDown(err);
            return { error: (err as Error).message };
          }
        });
        images.set(url, pending);
      }
      const got = await pending;
      if (got.error) throw new Error(`Image ${imageUrl}: ${got.error}`);
      // Hallmark's copy is the certificate's image from now on (anchored with its sha256);
      // the merchant's URL is kept as where it came from.
      imageUrl = new URL(`/media/${got.sha256}`, this.d.publicUrl).toString();
      extra.imageSource = url;
      extra.image = { sha256: got.sha256, contentType: got.contentType };
    }
    const metadataJson = JSON.stringify(extra);
    if (metadataJson.length > MAX_METADATA_JSON) {
      throw new Error(`The item's metadata is larger than ${MAX_METADATA_JSON} bytes of JSON.`);
    }
    return {
      name: item.name,
      image_url: imageUrl,
      metadata_json: metadataJson,
      description: (input.description as string | undefined) ?? (base.description as string | undefined),
      category: input.category as string | undefined,
      gtin: input.gtin as string | undefined,
      serial: input.serial as string | undefined,
    };
  }

  /** Waits (bounded) for the batch's confirmation on chain: pending | minted | failed. */
  async waitMinted(jobId: string, batchId: string, waitMs: number): Promise<string> {
    const job = await this.job(jobId);
    const res = await this.d.certificates.getMintBatch(
      { principal: principalOf(job), batch_id: batchId, wait_ms: waitMs, status_only: true },
      { deadlineMs: waitMs + 10_000, idempotent: true },
    );
    return res.status;
  }

  /**
   * Waits (bounded) for the batch to settle on chain, then completes it (`complete`): one step,
   * so the workflow can run it beside the next batch's mint. `pending`: not settled yet (the
   * workflow asks again); repeating it after a completion changes nothing (`complete` is).
   */
  async settle(jobId: string, key: string, batchId: string, waitMs: number): Promise<'pending' | 'done'> {
    if ((await this.waitMinted(jobId, batchId, waitMs)) === 'pending') return 'pending';
    await this.complete(jobId, key, batchId);
    return 'done';
  }

  /**
   * A minted batch: one voucher per certificate (idempotency key `<key>:v`), then the items
   * recorded succeeded with their vouchers and chain references. A failed batch: its items
   * recorded failed (the automatic retry takes them again).
   */
  async complete(jobId: string, key: string, batchId: string): Promise<number> {
    const job = await this.job(jobId);
    const principal = principalOf(job);
    // Ids and chain references only: no metadata or provenance of 1,000 certificates to read,
    // encode and decode for the four fields an item's result takes.
    const batch = await this.d.certificates.getMintBatch(
      { principal, batch_id: batchId, wait_ms: 0, status_only: false, refs_only: true },
      { idempotent: true },
    );
    if (batch.status !== 'minted') {
      return this.d.batches
        .recordFailure(jobId, key, `Minting failed on chain (batch ${batch.status}).`)
        .then(counted('failed'));
    }
    // A certificates release older than refs_only answers whole certificates (rolling upgrades).
    const minted = batch.minted.length > 0 ? batch.minted : batch.certificates;
    // The items that were sent: the batch's items less those that failed before the call.
    const pendingItems = await this.d.batches.sentItems(jobId, key);
    if (pendingItems.length !== minted.length) {
      // Certificates follow the MintBatch item order. A mismatch means the batch's items were
      // changed under us: stop here (Restate retries; an operator sees it) rather than guess.
      throw new Error(`batch ${key}: ${minted.length} certificates for ${pendingItems.length} items`);
    }
    const voucherItems: VoucherItem[] = pendingItems.map((item, i) => ({
      certificate_id: minted[i]!.id,
      metadata_json: JSON.stringify(voucherMetadataOf(item.input)),
      recipient_email: item.recipientEmail ?? undefined,
      recipient_name: item.recipientName ?? undefined,
      expiry_days: Number(item.input.expiryDays ?? 30),
      line_item_gid: (item.input.lineItemGid as string | undefined) ?? undefined,
    }));
    let vouchers;
    try {
      vouchers = await this.d.vouchers.createVouchers(
        { principal, idempotency_key: `${key}:v`, items: voucherItems },
        { deadlineMs: 60_000, idempotent: true },
      );
    } catch (err) {
      if (!isDomainRefusal(err)) throw err;
      return this.d.batches
        .recordFailure(jobId, key, `Vouchers refused: ${err.message}`)
        .then(counted('failed'));
    }
    const results: ItemResult[] = pendingItems.map((item, i) => {
      const cert = minted[i]!;
      const v = vouchers.vouchers[i]!;
      return {
        idx: item.idx,
        certificateId: cert.id,
        voucherId: v.id,
        url: v.url,
        referenceNumber: v.reference_number,
        expiresAt: v.expires_at,
        tokenId: cert.token_id ?? null,
        transactionHash: cert.transaction_hash ?? null,
        blockNumber: cert.block_number ?? null,
      };
    });
    return this.d.batches.recordSuccess(jobId, key, results).then(counted('success'));
  }

  resetForAutoRetry(jobId: string): Promise<number> {
    return this.d.batches.resetForAutoRetry(jobId);
  }

  async cancelRemaining(jobId: string): Promise<void> {
    await this.d.batches.markCancelled(jobId);
    const job = await this.job(jobId);
    await this.d.batches.recordCancelledDocument(job);
  }

  async finish(jobId: string, pass: number): Promise<string> {
    const job = await this.d.batches.finish(jobId, pass);
    return job?.status ?? 'missing';
  }

  async failBatch(jobId: string, key: string, error: string): Promise<number> {
    return this.d.batches.recordFailure(jobId, key, error).then(counted('failed'));
  }
}
