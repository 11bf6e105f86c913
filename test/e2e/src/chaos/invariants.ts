// The invariants, as pure functions of the history and the facts read after the run: a test
// can hand them a doctored history (a voucher redeemed past max_uses) and see them fail.
import type { Component, History } from './history.js';

/** Everything read back from the databases, the NATS stream and the chain (collect.ts). */
export interface Facts {
  vouchers: { id: string; maxUses: number | null; timesUsed: number; activeRedemptions: number }[];
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
  owedDeliveries: { eventId: string; endpointId: string }[];
  /** Ids of every event in the NATS stream (the Nats-Msg-Id = event id). */
  streamIds: Set<string>;
  /** Committed (outbox) event ids of the run, which the stream must hold. */
  committedIds: string[];
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
    .map((d) => `${d.eventId} → ${d.endpointId}`);
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
  // any lookup). 0 (no answer: the gateway was down) is not an acceptance either.
  const bad = uses
    .filter((u) => ![401, 429, 0].includes(u.status))
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
