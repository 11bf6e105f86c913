// The invariants, as pure functions of the history and the facts read after the run: a test
// can hand them a doctored history (a voucher redeemed past max_uses) and see them fail.
import type { Component, History } from './history.js';

/** A gift as the certificates database and the chain hold it after the run. */
export interface GiftFact {
  id: string;
  certificateId: string;
  tokenId: string;
  /** pending | claiming | claimed | revoked, or `gone` (expired: the record is removed). */
  status: string;
  recipientAddress: string | null;
  senderAddress: string;
  /** certificate_transfers rows of the certificate. */
  transferRecords: number;
  /** ownerOf(token) now. */
  owner: string;
  /** The token's Transfer events in the gift's recorded transaction (none before a claim). */
  moves: { from: string; to: string }[];
}

/** A paid order as bulk, platform, the simulator and the chain hold it after the run. */
export interface OrderFact {
  /** gid://shopify/Order/<id> */
  gid: string;
  units: number;
  /** Bulk jobs made for the order (external context), with their minted items. */
  jobs: { id: string; status: string; minted: number; failed: string[] }[];
  /** The platform's record: the transaction it reports, and its fulfilment's state. */
  transactionHash: string | null;
  fulfilment: string | null;
  /** Fulfillments the simulated platform holds for the order (their tracking numbers). */
  platformFulfillments: (string | null)[];
  /** The reported transaction is mined and succeeded. */
  txMined: boolean;
}

/** Everything read back from the databases, the NATS stream and the chain (collect.ts). */
export interface Facts {
  vouchers: { id: string; maxUses: number | null; timesUsed: number; activeRedemptions: number }[];
  /** The redemption rows of the run's vouchers (rolled back ones too). */
  redemptionRows: { voucherId: string; orderId: string; transactionId: string }[];
  jobs: { id: string; status: string }[];
  bulkItems: {
    jobId: string;
    idx: number;
    status: string;
    tokenId: string | null;
    certificateId: string | null;
    error: string | null;
  }[];
  /** Certificates with a token id (minted), from the certificates database. */
  certificates: { id: string; tokenId: string }[];
  /** Token ids the chain says exist, out of the certificates' ones. */
  onChain: Set<string>;
  /** totalSupply() summed over the contracts the relayer used. */
  chainSupply: number;
  relayer: { latestNonce: number; pendingNonce: number };
  /** Relayer transactions that were replaced (fee-bumped) at least once: evidence, not an invariant. */
  feeBumped: number;
  /** Chain submissions (mints, transfers, allowlist writes) not in a final state. */
  openSubmissions: string[];
  /** Unpublished outbox rows per service: `<service>:<event id>`. */
  outboxLeft: string[];
  /** Committed events some endpoint subscribed to: event id, type, endpoint ids it is owed to. */
  owedDeliveries: { eventId: string; endpointId: string; notify: string }[];
  /** Ids of every event in the NATS stream (the Nats-Msg-Id = event id). */
  streamIds: Set<string>;
  /** Committed (outbox) event ids of the run, which the stream must hold. */
  committedIds: string[];
  gifts: GiftFact[];
  orders: OrderFact[];
}

export interface InvariantResult {
  name: string;
  /** How many things were checked. */
  checked: number;
  /** Ids to look at; empty when the invariant holds. */
  violations: string[];
  /** Set when the invariant could not be judged (a part was not in this run). */
  skipped?: string;
}

/** A 503 is excused while a component the call depends on was down, plus this much. */
export const OUTAGE_GRACE_MS = 5_000;
/** The system answers normally again within this long of the last fault. */
export const RECOVERY_LIMIT_MS = 30_000;

const result = (name: string, checked: number, violations: string[], skipped?: string): InvariantResult => ({
  name,
  checked,
  violations,
  ...(skipped ? { skipped } : {}),
});

export function checkInvariants(h: History, f: Facts): InvariantResult[] {
  return [
    vouchersWithinMaxUses(h, f),
    orderIdsOncePerVoucher(h),
    acknowledgedRedemptionsKept(h, f),
    bulkItemsSettled(h, f),
    noTokenTwice(f),
    chainMatchesRecords(f),
    relayerIdle(f),
    outboxesEmpty(f),
    eventsInStream(f),
    webhooksDelivered(h, f),
    webhookSignatures(h),
    revokedKeysRefused(h),
    no5xxOutsideOutages(h),
    recovered(h),
    giftsClaimedOnce(h, f),
    giftTokensMovedOnce(f),
    ordersOneJob(f),
    ordersFulfilledOnce(f),
  ];
}

function vouchersWithinMaxUses(h: History, f: Facts): InvariantResult {
  const bad: string[] = [];
  const answered = new Map<string, Set<string>>();
  for (const r of h.redemptions) {
    const set = answered.get(r.voucherId) ?? new Set();
    set.add(r.orderId);
    answered.set(r.voucherId, set);
  }
  for (const v of h.vouchers) {
    const n = answered.get(v.id)?.size ?? 0;
    if (n > v.maxUses) bad.push(`${v.id} (${n} orders answered redeemed, max_uses ${v.maxUses})`);
  }
  for (const v of f.vouchers) {
    if (v.maxUses !== null && (v.timesUsed > v.maxUses || v.activeRedemptions > v.maxUses))
      bad.push(
        `${v.id} (times_used ${v.timesUsed}, redemptions ${v.activeRedemptions}, max_uses ${v.maxUses})`,
      );
    if (v.timesUsed !== v.activeRedemptions)
      bad.push(`${v.id} (times_used ${v.timesUsed} ≠ ${v.activeRedemptions} redemptions)`);
  }
  return result('no voucher redeemed past max_uses', h.vouchers.length + f.vouchers.length, bad);
}

function orderIdsOncePerVoucher(h: History): InvariantResult {
  // The same (voucher, order) may be answered twice (idempotent replay) but with one transaction.
  const txns = new Map<string, Set<string>>();
  for (const r of h.redemptions) {
    const key = `${r.voucherId}/${r.orderId}`;
    const set = txns.get(key) ?? new Set();
    set.add(r.transactionId);
    txns.set(key, set);
  }
  const bad = [...txns].filter(([, s]) => s.size > 1).map(([k, s]) => `${k} (${[...s].join(', ')})`);
  return result('each order id redeemed at most once per voucher', txns.size, bad);
}

/**
 * Durability (Jepsen's "lost acknowledged write"): a redemption answered 200 is recorded, with
 * the transaction it was answered with. Only a failover to a standby that had not received the
 * commit (asynchronous replication) can break it.
 */
export function acknowledgedRedemptionsKept(h: History, f: Pick<Facts, 'redemptionRows'>): InvariantResult {
  const kept = new Set(f.redemptionRows.map((r) => `${r.voucherId}/${r.orderId}/${r.transactionId}`));
  const bad = h.redemptions
    .filter((r) => !kept.has(`${r.voucherId}/${r.orderId}/${r.transactionId}`))
    .map((r) => `${r.voucherId}/${r.orderId} (${r.transactionId} answered, not recorded)`);
  return result('every acknowledged redemption is recorded', h.redemptions.length, [...new Set(bad)]);
}

function bulkItemsSettled(h: History, f: Facts): InvariantResult {
  const bad: string[] = [];
  const accepted = new Set(h.jobs.map((j) => j.id));
  for (const j of f.jobs)
    if (accepted.has(j.id) && !['completed', 'failed', 'cancelled'].includes(j.status))
      bad.push(`${j.id} (job ${j.status})`);
  let checked = 0;
  for (const it of f.bulkItems) {
    if (!accepted.has(it.jobId)) continue;
    checked++;
    const ok =
      it.status === 'success'
        ? it.tokenId !== null && it.certificateId !== null
        : ['failed', 'invalid', 'cancelled'].includes(it.status) && (it.status === 'cancelled' || !!it.error);
    if (!ok) bad.push(`${it.jobId}#${it.idx} (${it.status}, token ${it.tokenId ?? '-'})`);
  }
  return result('every accepted bulk item: one token or a recorded failure', checked, bad);
}

function noTokenTwice(f: Facts): InvariantResult {
  const bad: string[] = [];
  const seen = new Map<string, string>();
  for (const c of f.certificates) {
    const other = seen.get(c.tokenId);
    if (other) bad.push(`token ${c.tokenId} (${other}, ${c.id})`);
    seen.set(c.tokenId, c.id);
  }
  const byItem = new Map<string, string>();
  for (const it of f.bulkItems) {
    if (!it.tokenId) continue;
    const other = byItem.get(it.tokenId);
    if (other) bad.push(`token ${it.tokenId} (items ${other}, ${it.jobId}#${it.idx})`);
    byItem.set(it.tokenId, `${it.jobId}#${it.idx}`);
  }
  return result('no token minted twice', f.certificates.length, bad);
}

function chainMatchesRecords(f: Facts): InvariantResult {
  const bad = f.certificates
    .filter((c) => !f.onChain.has(c.tokenId))
    .map((c) => `${c.id} (token ${c.tokenId} not on chain)`);
  if (f.chainSupply !== f.certificates.length)
    bad.push(`chain supply ${f.chainSupply} ≠ ${f.certificates.length} minted certificate records`);
  return result('certificates on chain ↔ records one-to-one', f.certificates.length, bad);
}

function relayerIdle(f: Facts): InvariantResult {
  const bad = [...f.openSubmissions];
  if (f.relayer.pendingNonce !== f.relayer.latestNonce)
    bad.push(`relayer nonce: ${f.relayer.pendingNonce - f.relayer.latestNonce} transaction(s) pending`);
  return result('no relayer transaction left pending', f.relayer.latestNonce, bad);
}

function outboxesEmpty(f: Facts): InvariantResult {
  return result('outboxes empty', f.committedIds.length, f.outboxLeft);
}

function eventsInStream(f: Facts): InvariantResult {
  const bad = f.committedIds.filter((id) => !f.streamIds.has(id));
  return result('every committed event in the NATS stream', f.committedIds.length, bad);
}

function webhooksDelivered(h: History, f: Facts): InvariantResult {
  const got = new Set(
    h.receipts
      .filter((r) => r.answered >= 200 && r.answered < 300)
      .map((r) => `${r.endpointId}/${r.eventId}`),
  );
  const bad = f.owedDeliveries
    .filter((d) => !got.has(`${d.endpointId}/${d.eventId}`))
    .map((d) => `${d.eventId} → ${d.endpointId} (notify: ${d.notify})`);
  return result('every committed event delivered to each subscribed endpoint', f.owedDeliveries.length, bad);
}

function webhookSignatures(h: History): InvariantResult {
  const bad = h.receipts.filter((r) => !r.signatureValid).map((r) => `${r.eventId} → ${r.endpointId}`);
  return result('every webhook delivery signed correctly', h.receipts.length, bad);
}

function revokedKeysRefused(h: History): InvariantResult {
  const acked = new Map(h.revocations.map((r) => [r.keyId, r.ackAt]));
  const uses = h.keyUses.filter((u) => acked.has(u.keyId) && u.start > acked.get(u.keyId)!);
  // Refused: 401, or 429 once the failed-auth throttle blocks the address (it answers before
  // any lookup). 0 (no answer: the gateway was down) is not an acceptance either, nor is 503:
  // a key the gateway no longer holds cached while keys is killed cannot be checked, and the
  // gateway fails closed (what this invariant guards is that a revoked key is never served).
  const bad = uses
    .filter((u) => ![401, 429, 503, 0].includes(u.status))
    .map((u) => `${u.keyId} (answered ${u.status})`);
  return result('a revoked key is refused after the revocation was acknowledged', uses.length, bad);
}

function no5xxOutsideOutages(h: History): InvariantResult {
  const down = (c: Component, at: number) =>
    h.faults.some((f) => f.component === c && f.start <= at && at <= f.end + OUTAGE_GRACE_MS);
  const bad: string[] = [];
  for (const call of h.calls) {
    if (call.status < 500) continue;
    // The surface's 503: `service_unavailable` (the v1 error format), or bulk's own
    // `{success: false, error}` form whose message is not a code.
    const surface503 =
      call.status === 503 &&
      (call.code === undefined || call.code === 'service_unavailable' || !/^[a-z_]+$/.test(call.code));
    const excused = surface503 && call.deps.some((d) => down(d, call.start) || down(d, call.end));
    if (!excused)
      bad.push(
        `${call.op}${call.ref ? ` ${call.ref}` : ''} → ${call.status}${call.code ? ` ${call.code}` : ''} at +${((call.start - h.started) / 1000).toFixed(1)} s`,
      );
  }
  return result('no 5xx except 503 while its backend was down', h.calls.length, bad);
}

function recovered(h: History): InvariantResult {
  if (h.faults.length === 0)
    return result('normal answers within 30 s of the last fault', 0, [], 'no faults');
  const ok = h.recoveryMs !== undefined && h.recoveryMs <= RECOVERY_LIMIT_MS;
  return result(
    'normal answers within 30 s of the last fault',
    1,
    ok
      ? []
      : [
          h.recoveryMs === undefined
            ? 'no normal answer'
            : `first normal answer after ${(h.recoveryMs / 1000).toFixed(1)} s`,
        ],
  );
}

const same = (a: string | null | undefined, b: string | null | undefined) =>
  !!a && !!b && a.toLowerCase() === b.toLowerCase();

function giftsClaimedOnce(h: History, f: Facts): InvariantResult {
  const bad: string[] = [];
  // Who the answers say took each gift (200 claimed or 202 claiming, to this claimer).
  const winners = new Map<string, Map<string, string | undefined>>();
  for (const c of h.giftClaims) {
    if (c.status !== 200 && c.status !== 202) continue;
    const w = winners.get(c.giftId) ?? new Map<string, string | undefined>();
    w.set(c.user, c.recipientAddress ?? w.get(c.user));
    winners.set(c.giftId, w);
  }
  const facts = new Map(f.gifts.map((g) => [g.id, g]));
  for (const [id, w] of winners) {
    if (w.size > 1) bad.push(`${id} (taken by ${[...w.keys()].join(', ')})`);
    const g = facts.get(id);
    const [address] = [...w.values()];
    if (w.size === 1 && g && (g.status !== 'claimed' || !same(g.recipientAddress, address)))
      bad.push(
        `${id} (answered taken for ${address ?? '?'}, recorded ${g.status} for ${g.recipientAddress ?? '-'})`,
      );
  }
  for (const g of f.gifts)
    if (!['pending', 'claimed', 'revoked', 'gone'].includes(g.status))
      bad.push(`${g.id} (still ${g.status})`);
  return result('every gift claimed at most once: one owner, or still open or expired', h.gifts.length, bad);
}

function giftTokensMovedOnce(f: Facts): InvariantResult {
  const bad: string[] = [];
  for (const g of f.gifts) {
    const moves = g.moves.map((m) => `${m.from}→${m.to}`).join(', ') || 'none';
    if (g.status === 'claimed') {
      const [m] = g.moves;
      const once = g.moves.length === 1 && same(m!.from, g.senderAddress) && same(m!.to, g.recipientAddress);
      if (!once || !same(g.owner, g.recipientAddress) || g.transferRecords !== 1)
        bad.push(
          `${g.id} token ${g.tokenId} (claimed for ${g.recipientAddress}; owner ${g.owner}, moves ${moves}, ${g.transferRecords} transfer records)`,
        );
    } else if (g.moves.length > 0 || !same(g.owner, g.senderAddress)) {
      bad.push(`${g.id} token ${g.tokenId} (${g.status}; owner ${g.owner}, moves ${moves})`);
    }
  }
  return result("a claimed gift's token moved once, to the claimer's wallet", f.gifts.length, bad);
}

function ordersOneJob(f: Facts): InvariantResult {
  const bad: string[] = [];
  for (const o of f.orders) {
    if (o.jobs.length !== 1)
      bad.push(
        `${o.gid} (${o.jobs.length} bulk jobs${o.jobs.length ? `: ${o.jobs.map((j) => j.id).join(', ')}` : ''})`,
      );
    const minted = o.jobs.reduce((n, j) => n + j.minted, 0);
    const failed = o.jobs.flatMap((j) => j.failed);
    if (minted + failed.length !== o.units)
      bad.push(
        `${o.gid} (${minted} certificates minted, ${failed.length} failures recorded, for ${o.units} units)`,
      );
  }
  return result(
    'each paid order: one bulk job, one certificate per unit (or its recorded failure)',
    f.orders.length,
    bad,
  );
}

function ordersFulfilledOnce(f: Facts): InvariantResult {
  const bad: string[] = [];
  for (const o of f.orders) {
    // Strict: an order whose job minted nothing (recorded failures only) and was skipped is a
    // violation too. A short certificates outage once failed every item of such a job.
    const tracking = o.platformFulfillments.join(', ') || 'none';
    if (
      o.platformFulfillments.length !== 1 ||
      !o.transactionHash ||
      o.platformFulfillments[0] !== o.transactionHash ||
      !o.txMined ||
      o.fulfilment !== 'fulfilled'
    )
      bad.push(
        `${o.gid} (${o.platformFulfillments.length} fulfillments at the platform, tracking ${tracking}; transaction ${o.transactionHash ?? '-'}${o.transactionHash && !o.txMined ? ' not mined' : ''}; fulfilment ${o.fulfilment ?? '-'})`,
      );
  }
  return result('every paid order fulfilled once, with its mined transaction', f.orders.length, bad);
}
