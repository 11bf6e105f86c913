// Domain events: one envelope, one schema per event type, all in this one file so that
// producers and consumers cannot drift. Subjects are `hallmark.<svc>.<entity>.<verb>`.
import { z } from 'zod';

export const STREAM_NAME = 'HALLMARK';
export const STREAM_SUBJECTS = ['hallmark.>'];

const Id = z.string().min(1);
const ObjectEvent = z.object({ object: z.record(z.string(), z.unknown()) });
const Nullable = <T extends z.ZodType>(t: T) => t.nullable().optional();
/** Bulk job outcome as the enterprise webhook body carries it (spec › bulk.job.completed). */
const BulkJobEvent = z.looseObject({
  jobId: Id,
  status: z.string(),
  summary: z.looseObject({
    totalItems: z.number(),
    successCount: z.number(),
    failureCount: z.number(),
    processingTime: z.number(),
  }),
  results: Nullable(
    z.looseObject({
      vouchers: z.array(z.looseObject({ id: z.string(), url: z.string(), referenceNumber: z.string() })),
      transactionHash: Nullable(z.string()),
      blockNumber: Nullable(z.number()),
    }),
  ),
  shop: Nullable(z.string()),
  orderId: Nullable(z.string()),
  orderNumber: Nullable(z.string()),
  voucher_map: Nullable(
    z.record(
      z.string(),
      z.object({
        voucherIds: z.array(z.string()),
        urls: z.array(z.string()),
        referenceNumbers: z.array(z.string()),
      }),
    ),
  ),
  voucher_all: Nullable(
    z.array(
      z.object({
        lineItemGid: z.string(),
        voucherId: z.string(),
        url: z.string(),
        referenceNumber: z.string(),
      }),
    ),
  ),
});

/** Payload schemas by event type. A producer cannot write an event whose type is not here. */
export const EVENT_SCHEMAS = {
  'user.created': z.object({ id: Id, email: z.string().nullable(), role: z.string(), enterprise_id: Id }),
  'user.updated': z.object({ id: Id, email: z.string().nullable(), role: z.string(), enterprise_id: Id }),
  'key.created': z.object({ id: Id, type: z.string(), name: z.string() }),
  'key.updated': z.object({ id: Id }),
  'key.revoked': z.object({ id: Id }),
  'key.rotated': z.object({ id: Id, grace_until: z.string() }),
  'key.shared': z.object({ id: Id, user_ids: z.array(z.string()) }),
  'voucher.created': z.object({ object: z.record(z.string(), z.unknown()) }),
  'voucher.updated': z.object({ object: z.record(z.string(), z.unknown()) }),
  'voucher.deleted': z.object({ object: z.record(z.string(), z.unknown()) }),
  'voucher.redeemed': z.object({ object: z.record(z.string(), z.unknown()), order_id: z.string() }),
  'transaction.created': z.object({ object: z.record(z.string(), z.unknown()) }),
  'transaction.completed': z.object({ object: z.record(z.string(), z.unknown()) }),
  'transaction.updated': z.object({ object: z.record(z.string(), z.unknown()) }),
  'transaction.failed': z.object({ object: z.record(z.string(), z.unknown()) }),
  // Versioned-surface types not yet emitted by a service (architecture.md › Versioned-surface
  // events): whoever emits them puts the spec's resource in `object`; notify delivers it as
  // the envelope's data.object.
  'user.deleted': ObjectEvent,
  'user.verified': ObjectEvent,
  'payment.succeeded': ObjectEvent,
  'payment.failed': ObjectEvent,
  'payment.refunded': ObjectEvent,
  'subscription.created': ObjectEvent,
  'subscription.updated': ObjectEvent,
  'subscription.cancelled': ObjectEvent,
  'subscription.renewed': ObjectEvent,
  'document.uploaded': ObjectEvent,
  'document.processed': ObjectEvent,
  'document.verified': ObjectEvent,
  // Enterprise webhook events (spec › Enterprise webhook events). `data` is the spec's body
  // without `event` and `timestamp`, which notify adds; extra fields pass through.
  'bulk.job.completed': BulkJobEvent,
  'bulk.job.failed': BulkJobEvent.extend({ error: z.string().optional() }),
  /** A certificate voucher minted on chain (certificates service); `object` is the voucher. */
  'voucher.minted': ObjectEvent,
  /**
   * A certificate's token confirmed on chain (certificates service), one event per certificate
   * of a minted batch; `object` is the certificate (id, tokenId, name, imageUrl, metadata,
   * metadataHash, batchId, holderAddress, status, transactionHash, blockNumber, …).
   */
  'certificate.minted': z.object({
    object: z.looseObject({
      id: Id,
      tokenId: z.number(),
      transactionHash: z.string(),
      blockNumber: z.number(),
    }),
  }),
  /**
   * A certificate's token burned on chain (certificates service, burn indexer), once per
   * certificate, after HALLMARK_CHAIN_CONFIRMATIONS confirmations; `object` is the certificate
   * (status `burned`), `burn` the Transfer-to-zero that burned it.
   */
  'certificate.burned': z.object({
    object: z.looseObject({ id: Id, tokenId: z.number(), status: z.literal('burned') }),
    burn: z.object({
      transactionHash: z.string(),
      blockNumber: z.number(),
      actor: z.string(),
      from: z.string(),
    }),
  }),
  /**
   * A certificate moved by its holder's signature (certificates service, Transfer), once per
   * transfer, after HALLMARK_CHAIN_CONFIRMATIONS confirmations; `object` is the certificate
   * (holderAddress = the new holder), `transfer` the transaction that moved it.
   */
  'certificate.transferred': z.object({
    object: z.looseObject({ id: Id, tokenId: z.number(), holderAddress: z.string() }),
    transfer: z.object({
      from: z.string(),
      to: z.string(),
      toUserId: z.string().nullable(),
      transactionHash: z.string(),
      blockNumber: z.number(),
    }),
  }),
  // Used by the kit's own tests and health probes.
  'kit.probe.sent': z.object({ n: z.number() }),
} as const;

export type EventType = keyof typeof EVENT_SCHEMAS;
export type EventData<T extends EventType> = z.infer<(typeof EVENT_SCHEMAS)[T]>;

export interface EventEnvelope<T extends EventType = EventType> {
  id: string;
  type: T;
  source: string;
  occurred_at: string;
  enterprise_id: string | null;
  livemode: boolean;
  request_id: string | null;
  data: EventData<T>;
}

/** `user.created` from service `keys` → `hallmark.keys.user.created`. */
export function subjectFor(source: string, type: string): string {
  return `hallmark.${source}.${type}`;
}
