// The gift workload, through the gateway: certificates minted by the run's order jobs each
// come with a certificate voucher for the order's customer, and a certificate has one pending
// hand-over at a time, so the customer (a user of the run's enterprise proving the voucher's
// e-mail) claims the voucher first and then gifts the certificate from her wallet; most gifts
// are then claimed by fresh user sessions, some by two users at once (exactly one may win),
// some left open to expire. A claim that got no answer (its backend down) is repeated by the
// same user, as a recipient would.
import type { Component, History } from './history.js';
import type { Rng } from './prng.js';
import { call } from './workload.js';

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

// Every call carries a session, which the gateway resolves through keys.
const CREATE_DEPS: Component[] = ['gateway', 'keys', 'certificates', 'postgres'];
const CLAIM_DEPS: Component[] = ['gateway', 'keys', 'certificates', 'postgres', 'restate', 'anvil'];
const JOB_DEPS: Component[] = ['gateway', 'keys', 'bulk', 'postgres'];
/** Tries of one claimer while the answer is missing or a 5xx. */
const CLAIM_TRIES = 8;

export async function runGifts(
  h: History,
  gatewayUrl: string,
  session: string,
  userToken: (sub: string) => Promise<string>,
  customerToken: (sub: string, email: string) => Promise<string>,
  rng: Rng,
  stop: AbortSignal,
): Promise<void> {
  const harvested = new Set<string>();
  const pool: { certificateId: string; tokenId: string; voucherId?: string; email?: string }[] = [];
  const claims: Promise<void>[] = [];
  let n = 0;
  while (!stop.aborted) {
    await sleep(rng.int(1500, 3500));
    if (stop.aborted) break;
    if (pool.length === 0) {
      // Minted certificates of a finished order job the loop has not read yet.
      const job = h.jobs.find((j) => j.form === 'order' && !harvested.has(j.id));
      if (!job) continue;
      const r = await call(h, gatewayUrl, 'getBulkJob', JOB_DEPS, {
        method: 'GET',
        path: `/api/bulk-mint/${job.id}`,
        auth: session,
      });
      const status = r.body?.job?.status;
      if (status === 'completed' || status === 'failed' || status === 'cancelled') {
        harvested.add(job.id);
        for (const v of (r.body.job.results?.vouchers ?? []) as {
          id?: string;
          certificateId?: string;
          tokenId?: string;
          recipientEmail?: string;
        }[])
          if (v.certificateId && v.tokenId != null)
            pool.push({
              certificateId: v.certificateId,
              tokenId: String(v.tokenId),
              voucherId: v.id,
              email: v.recipientEmail,
            });
      }
      continue;
    }
    const cert = pool.shift()!;
    const giver = cert.voucherId
      ? await claimVoucher(h, gatewayUrl, cert.voucherId, cert.email ?? 'buyer@example.com', n, customerToken)
      : session;
    if (!giver) continue;
    const r = await createGift(h, gatewayUrl, giver, cert.certificateId, `gift${n++}@example.com`, stop);
    if (r.status !== 201) continue;
    const gift = {
      id: r.body.transferId as string,
      certificateId: cert.certificateId,
      tokenId: cert.tokenId,
      senderAddress: r.body.gift.senderAddress as string,
      at: Date.now(),
    };
    h.gifts.push(gift);
    const draw = rng.next();
    if (draw < 0.2) continue; // left open: pending until it expires
    const claimers = draw < 0.55 ? 2 : 1;
    const subs = Array.from({ length: claimers }, (_, i) => `gift-claimer-${n}-${i}`);
    claims.push(
      // The claim token is the gift's secret: the history keeps only the gift id.
      Promise.all(
        subs.map((sub) => claimAsRecipient(h, gatewayUrl, gift.id, r.body.claimToken, sub, userToken)),
      ).then(() => undefined),
    );
  }
  await Promise.all(claims);
}

async function claimAsRecipient(
  h: History,
  gatewayUrl: string,
  giftId: string,
  token: string,
  sub: string,
  userToken: (sub: string) => Promise<string>,
): Promise<void> {
  const auth = await userToken(sub);
  for (let i = 0; i < CLAIM_TRIES; i++) {
    const r = await call(
      h,
      gatewayUrl,
      'claimGift',
      CLAIM_DEPS,
      { method: 'POST', path: `/api/certificates/gift/claim/${token}`, auth },
      giftId,
    );
    h.giftClaims.push({
      giftId,
      user: sub,
      status: r.status,
      ...(typeof r.body?.gift?.recipientAddress === 'string'
        ? { recipientAddress: r.body.gift.recipientAddress }
        : {}),
      at: Date.now(),
    });
    if (r.status > 0 && r.status < 500) return;
    await sleep(1000);
  }
}

/**
 * The order's customer claims the certificate voucher (a session of the run's enterprise with
 * its e-mail), so the certificate is hers to gift; her session, or null when the claim got no
 * answer it could go on with.
 */
async function claimVoucher(
  h: History,
  gatewayUrl: string,
  voucherId: string,
  email: string,
  n: number,
  customerToken: (sub: string, email: string) => Promise<string>,
): Promise<string | null> {
  const auth = await customerToken(`customer-${n}`, email);
  for (let i = 0; i < CLAIM_TRIES; i++) {
    const r = await call(h, gatewayUrl, 'claimVoucher', CLAIM_DEPS, {
      method: 'POST',
      path: `/api/certificates/vouchers/${voucherId}/claim`,
      auth,
    });
    if (r.status === 200 || r.status === 202) return auth;
    if (r.status > 0 && r.status < 500) return null;
    await sleep(1000);
  }
  return null;
}

/** Creates the gift, waiting out the voucher claim's transfer (409 while it still holds the certificate). */
async function createGift(
  h: History,
  gatewayUrl: string,
  auth: string,
  certificateId: string,
  recipientEmail: string,
  stop: AbortSignal,
) {
  for (let i = 0; ; i++) {
    const r = await call(
      h,
      gatewayUrl,
      'createGift',
      CREATE_DEPS,
      {
        method: 'POST',
        path: '/api/certificates/gift/create',
        auth,
        body: { certificateId, recipientEmail },
      },
      certificateId,
    );
    if (r.status !== 409 || i >= 30 || stop.aborted) return r;
    await sleep(1000);
  }
}
