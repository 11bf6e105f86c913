// Domain events as contracts: one envelope, and per event type one payload schema and how the
// type reaches webhooks, all in this one table (some entries in side files, spread in), so that
// producers (events built with `newEvent`, payloads checked against the schema by the outbox)
// and consumers (notify's subscribable types and envelope mapping) cannot drift. Zod, not proto:
// the payloads are JSON on the bus and in webhooks, checked where every event is written (the
// kit outbox), with no codegen step. Subjects are `hallmark.<svc>.<entity>.<verb>`.
import { z } from 'zod';
import { ResaleEvent } from './resale-events.js';
import { TagCloneSuspectedEvent } from './tag-events.js';
import { SERVICE_RECORD_EVENTS } from './events-service-records.js';
import { BATCH_EVENTS } from './batch-events.js';

export const STREAM_NAME = 'HALLMARK';
export const STREAM_SUBJECTS = ['hallmark.>'];

const Id = z.string().min(1);
const ObjectEvent = z.object({ object: z.record(z.string(), z.unknown()) });
const Iso = z.string();
const Money = z.number().int();
/** A discount voucher as the API and events show it (vouchers service, VoucherView). */
const DiscountVoucherObject = z.looseObject({
  id: Id,
  code: z.string(),
  type: z.enum(['percentage', 'fixed_amount']),
  value: z.number(),
  status: z.string(),
  uses_remaining: z.number().nullable(),
  max_uses: z.number().nullable(),
  expires_at: Iso.nullable(),
  created_at: Iso,
  livemode: z.boolean(),
  enterprise_id: Id,
  times_used: z.number(),
  updated_at: Iso,
});
/** The spec's Transaction of a voucher redemption (spec › Events › Transaction). */
const TransactionObject = z.looseObject({
  id: Id,
  type: z.string(),
  // The discount applied; null for a percentage voucher redeemed without the order amount.
  amount: Money.nullable(),
  currency: z.string(),
  status: z.enum(['pending', 'completed', 'failed', 'reversed']),
  user_id: z.string().nullable(),
  description: z.string(),
  metadata: z.record(z.string(), z.unknown()),
  created_at: Iso,
});
const TransactionEvent = z.object({ object: TransactionObject });
/** A certificate voucher as its enterprise webhook carries it (certificates service). */
const CertificateVoucherEvent = z.object({ object: z.looseObject({ id: Id }) });
const Nullable = <T extends z.ZodType>(t: T) => t.nullable().optional();
const StolenCertificateObject = z.looseObject({
  id: Id,
  tokenId: z.number().nullable(),
  holderAddress: z.string(),
  stolenReport: z.looseObject({
    kind: z.enum(['stolen', 'lost']),
    reason: z.string(),
    reportedAt: Iso,
    reportedBy: z.object({ type: z.enum(['brand', 'owner']), id: z.string() }),
  }),
});
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

/**
 * A paid platform order that could not become its bulk job (platform service): the shop and
 * order, and why in the spec's error terms (`code`, `message`, `param` when a field is to
 * blame). Sent once per order, with the integration's `lastError` set in the same transaction.
 */
const PlatformOrderFailedEvent = z.looseObject({
  shop: z.string(),
  orderId: z.string(),
  orderNumber: Nullable(z.string()),
  orderName: Nullable(z.string()),
  error: z.looseObject({ code: z.string(), message: z.string(), param: Nullable(z.string()) }),
});

/** How an event type reaches webhooks: as itself on the versioned surface, as an enterprise event under its wire name, or not at all. */
export type WebhookRoute = { surface: 'versioned' } | { surface: 'enterprise'; as: string } | null;

const internal = <S extends z.ZodType>(schema: S) => ({ schema, webhook: null });
const versioned = <S extends z.ZodType>(schema: S) => ({
  schema,
  webhook: { surface: 'versioned' as const },
});
const enterprise = <S extends z.ZodType, N extends string>(schema: S, as: N) => ({
  schema,
  webhook: { surface: 'enterprise' as const, as },
});

/**
 * Every event type: its payload schema and its webhook route. A producer cannot write an
 * event whose type is not here, nor (through the outbox) a payload its schema refuses.
 * Versioned-surface types are listed in the spec's order (spec › Versioned-surface webhook
 * events); notify offers exactly these for subscription.
 */
export const EVENTS = {
  // Versioned surface (architecture.md › Versioned-surface events): keys emits user.created
  // and user.updated; vouchers the transaction.* of a redemption; bulk document.uploaded and
  // document.processed; certificates document.verified. The others are subscribable and are
  // delivered when something emits them; whoever does puts the spec's resource in `object`,
  // which notify delivers as the envelope's data.object.
  'user.created': versioned(
    z.object({ id: Id, email: z.string().nullable(), role: z.string(), enterprise_id: Id }),
  ),
  'user.updated': versioned(
    z.object({ id: Id, email: z.string().nullable(), role: z.string(), enterprise_id: Id }),
  ),
  'user.deleted': versioned(ObjectEvent),
  'user.verified': versioned(ObjectEvent),
  'transaction.created': versioned(TransactionEvent),
  'transaction.updated': versioned(TransactionEvent),
  'transaction.completed': versioned(TransactionEvent),
  'transaction.failed': versioned(TransactionEvent),
  'payment.succeeded': versioned(ObjectEvent),
  'payment.failed': versioned(ObjectEvent),
  'payment.refunded': versioned(ObjectEvent),
  'subscription.created': versioned(ObjectEvent),
  'subscription.updated': versioned(ObjectEvent),
  'subscription.cancelled': versioned(ObjectEvent),
  'subscription.renewed': versioned(ObjectEvent),
  'document.uploaded': versioned(ObjectEvent),
  'document.processed': versioned(ObjectEvent),
  'document.verified': versioned(ObjectEvent),
  /**
   * A discount voucher created (vouchers service), `object` the voucher as the API shows it.
   * Ours beyond the spec's list, named apart from the certificate voucher's enterprise
   * `voucher.created`: a `/api/v1/webhooks` endpoint subscribes to it like any versioned type.
   */
  'discount_voucher.created': versioned(z.object({ object: DiscountVoucherObject })),
  /**
   * Lost and stolen (certificates service, docs/lost-and-stolen.md), versioned like
   * `discount_voucher.created`. `object` is the certificate (id, tokenId, holderAddress) with
   * `stolenReport`, the report as the brand sees it (kind stolen | lost, reason, reportedAt, reportedBy {type
   * brand | owner, id}); `certificate.recovered` adds its `clearedAt`, `clearedBy`,
   * `clearReason` (and `recoveredTo` when a brand recovery's transfer ended it). Written in the
   * transaction that flags or clears the certificate; the gateway's public cache drops the
   * certificate's entries on them (subject certificate.*).
   */
  'certificate.reported_stolen': versioned(z.object({ object: StolenCertificateObject })),
  'certificate.recovered': versioned(z.object({ object: StolenCertificateObject })),
  /** An NFC tag's message seen again: replayed or copied (certificates, docs/nfc-tags.md);
   * once per tag and counter, in the tap's transaction. Payload: tag-events.ts. */
  'certificate.tag_clone_suspected': versioned(TagCloneSuspectedEvent),
  /** Resale (certificates, docs/resale.md): payload and lifecycle in resale-events.ts. */
  'certificate.resale_started': versioned(ResaleEvent),
  'certificate.resale_approval_requested': versioned(ResaleEvent),
  'certificate.resale_approved': versioned(ResaleEvent),
  'certificate.resale_refused': versioned(ResaleEvent),
  'certificate.resale_completed': versioned(ResaleEvent),
  'certificate.resale_cancelled': versioned(ResaleEvent),
  ...SERVICE_RECORD_EVENTS, // service records (docs/service-records.md): events-service-records.ts
  // Enterprise webhook events (spec › Enterprise webhook events). `data` is the spec's body
  // without `event` and `timestamp`, which notify adds; extra fields pass through.
  'bulk.job.completed': enterprise(BulkJobEvent, 'bulk.job.completed'),
  'bulk.job.failed': enterprise(BulkJobEvent.extend({ error: z.string().optional() }), 'bulk.job.failed'),
  /**
   * Certificate vouchers (certificates service): created, and minted on chain. Named apart
   * from the discount voucher's `voucher.*`; on the wire they are the spec's `voucher.created`
   * and `voucher.minted`, with `object` (the voucher) as the body's `voucher`.
   */
  'certificate_voucher.created': enterprise(CertificateVoucherEvent, 'voucher.created'),
  'certificate_voucher.minted': enterprise(CertificateVoucherEvent, 'voucher.minted'),
  /**
   * Not in the spec's list: named as its `bulk.job.failed` is (`<area>.<resource>.<outcome>`),
   * for the paid order that never became a job, so the merchant hears of it (platform service).
   */
  'platform.order.failed': enterprise(PlatformOrderFailedEvent, 'platform.order.failed'),

  // Internal: heard on the bus, never a webhook.
  'key.created': internal(z.object({ id: Id, type: z.string(), name: z.string() })),
  'key.updated': internal(z.object({ id: Id })),
  'key.revoked': internal(z.object({ id: Id })),
  'key.rotated': internal(z.object({ id: Id, grace_until: z.string() })),
  'key.shared': internal(z.object({ id: Id, user_ids: z.array(z.string()) })),
  /**
   * An enterprise's public issuer profile as it now stands (keys service), on every save and
   * every re-check of its domain proof, in the transaction that wrote it; once per existing
   * profile when this event was introduced (keys migration 0007). `as_of` orders them: a
   * reader keeps the newest (certificates' read model of issuers, which answers the public
   * pages' "Issued by" line without asking keys).
   */
  'enterprise_profile.updated': internal(
    z.object({
      object: z.object({
        enterprise_id: Id,
        display_name: z.string(),
        website: z.string(),
        domain_verified: z.boolean(),
        logo_sha256: z.string().nullable(),
        logo_width: z.number().int(),
        logo_height: z.number().int(),
        indexable: z.boolean(),
        as_of: Iso,
      }),
    }),
  ),
  /** Discount vouchers changed or deleted (vouchers service); `object` is the voucher as the API shows it. */
  'voucher.updated': internal(z.object({ object: DiscountVoucherObject })),
  'voucher.deleted': internal(z.object({ object: DiscountVoucherObject })),
  'voucher.redeemed': internal(
    z.object({
      object: z.looseObject({
        id: Id,
        code: z.string(),
        transaction_id: Id,
        order_id: z.string(),
        // Null when the redemption gave no order amount (and the discount of a percentage).
        original_amount: Money.nullable(),
        discount_applied: Money.nullable(),
        final_amount: Money.nullable(),
        currency: z.string(),
        redeemed_at: Iso,
      }),
      order_id: z.string(),
    }),
  ),
  /**
   * A batch of one certificate confirmed on chain (more: certificate.batch_minted); `object` is
   * the certificate (id, tokenId, name, imageUrl, metadata, …, transactionHash, blockNumber).
   */
  'certificate.minted': internal(
    z.object({
      object: z.looseObject({
        id: Id,
        tokenId: z.number(),
        transactionHash: z.string(),
        blockNumber: z.number(),
      }),
    }),
  ),
  ...BATCH_EVENTS, // a minted batch, many vouchers' events: batch-events.ts
  /**
   * A certificate's token burned on chain (certificates service, burn indexer), once per
   * certificate, after HALLMARK_CHAIN_CONFIRMATIONS confirmations; `object` is the certificate
   * (status `burned`), `burn` the Transfer-to-zero that burned it.
   */
  'certificate.burned': internal(
    z.object({
      object: z.looseObject({ id: Id, tokenId: z.number(), status: z.literal('burned') }),
      burn: z.object({
        transactionHash: z.string(),
        blockNumber: z.number(),
        actor: z.string(),
        from: z.string(),
      }),
    }),
  ),
  /**
   * A certificate moved by its holder's signature (certificates service, Transfer), once per
   * transfer, after HALLMARK_CHAIN_CONFIRMATIONS confirmations; `object` is the certificate
   * (holderAddress = the new holder), `transfer` the transaction that moved it.
   */
  'certificate.transferred': internal(
    z.object({
      object: z.looseObject({ id: Id, tokenId: z.number(), holderAddress: z.string() }),
      transfer: z.object({
        from: z.string(),
        to: z.string(),
        toUserId: z.string().nullable(),
        transactionHash: z.string(),
        blockNumber: z.number(),
      }),
    }),
  ),
  /**
   * A certificate's public record changed without a chain event of its own (certificates
   * service), in the transaction that changed it: its warranty set or changed, a gift
   * claimed, a certificate-voucher claim or its undoing. `object` names the certificate and
   * its token (null before minting), `change` the provenance kind it recorded. The gateway's
   * public cache drops the certificate's entries on it (as on minted, transferred, burned).
   */
  'certificate.updated': internal(
    z.object({
      object: z.looseObject({ id: Id, tokenId: z.number().nullable() }),
      change: z.string(),
    }),
  ),
  // Used by the kit's own tests and health probes.
  'kit.probe.sent': internal(z.object({ n: z.number() })),
} as const;

export type EventType = keyof typeof EVENTS;
export type EventSchema<T extends EventType> = (typeof EVENTS)[T]['schema'];
export type EventData<T extends EventType> = z.infer<EventSchema<T>>;

/** Payload schemas by event type (derived from EVENTS). */
export const EVENT_SCHEMAS = Object.fromEntries(
  Object.entries(EVENTS).map(([type, c]) => [type, c.schema]),
) as { [T in EventType]: EventSchema<T> };

/** The types delivered as themselves on the versioned surface, in the spec's order. */
export type VersionedEventType = {
  [T in EventType]: (typeof EVENTS)[T]['webhook'] extends { surface: 'versioned' } ? T : never;
}[EventType];
/** The wire names of enterprise webhook events (`voucher.created`, not the internal type). */
export type EnterpriseEventName = {
  [T in EventType]: (typeof EVENTS)[T]['webhook'] extends { surface: 'enterprise'; as: infer N } ? N : never;
}[EventType];

const route = (type: string): WebhookRoute =>
  Object.hasOwn(EVENTS, type) ? EVENTS[type as EventType].webhook : null;

export const VERSIONED_EVENT_TYPES = (Object.keys(EVENTS) as EventType[]).filter(
  (t) => route(t)?.surface === 'versioned',
) as VersionedEventType[];

export const ENTERPRISE_EVENT_NAMES = (Object.keys(EVENTS) as EventType[]).flatMap((t) => {
  const r = route(t);
  return r?.surface === 'enterprise' ? [r.as as EnterpriseEventName] : [];
});

/** The versioned-surface type an event type is delivered as, or null. */
export function versionedTypeOf(type: string): VersionedEventType | null {
  return route(type)?.surface === 'versioned' ? (type as VersionedEventType) : null;
}

/** The enterprise webhook name an event type is delivered as, or null. */
export function enterpriseNameOf(type: string): EnterpriseEventName | null {
  const r = route(type);
  return r?.surface === 'enterprise' ? (r.as as EnterpriseEventName) : null;
}

/** What a producer hands the outbox: a typed payload and the tenant it belongs to. */
export interface EventInput<T extends EventType> {
  type: T;
  data: EventData<T>;
  enterpriseId?: string | null;
  livemode?: boolean;
  id?: string;
}

/**
 * The typed constructor producers use: `newEvent('voucher.updated', { object }, voucher)`.
 * `owner` gives the tenant (any record with enterpriseId and livemode will do).
 */
export function newEvent<T extends EventType>(
  type: T,
  data: EventData<T>,
  owner: { enterpriseId?: string | null; livemode?: boolean } = {},
): EventInput<T> {
  return { type, data, enterpriseId: owner.enterpriseId ?? null, livemode: owner.livemode ?? true };
}

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
