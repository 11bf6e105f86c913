// The mixed workload, through the gateway only: hot vouchers with tight max_uses redeemed
// with repeated order ids (webhook endpoints subscribed to their transactions), bulk order
// jobs and small CSV jobs, API key rotations and revocations. Every call lands in the history.
import { randomBase62 } from '@hallmark/kit';
import { csvForm, idempotencyKeyOf, orderBody } from '../bulk.js';
import type { Call, Component, History } from './history.js';
import type { Rng } from './prng.js';
import type { Sinks } from './sinks.js';

export interface Client {
  gatewayUrl: string;
  session: string;
  key: string;
}

const CALL_TIMEOUT_MS = 60_000;
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** One gateway call, recorded; never throws (no answer is status 0). */
export async function call(
  h: History,
  gatewayUrl: string,
  op: string,
  deps: Component[],
  init: {
    method: string;
    path: string;
    auth: string;
    body?: unknown;
    form?: FormData;
    headers?: Record<string, string>;
  },
  ref?: string,
): Promise<{ status: number; body: any }> {
  const headers: Record<string, string> = { authorization: `Bearer ${init.auth}`, ...init.headers };
  let body: string | FormData | undefined = init.form;
  if (init.body !== undefined) {
    body = JSON.stringify(init.body);
    headers['content-type'] = 'application/json';
  }
  const start = Date.now();
  let status = 0;
  let parsed: any;
  try {
    const res = await fetch(gatewayUrl + init.path, {
      method: init.method,
      headers,
      body,
      signal: AbortSignal.timeout(CALL_TIMEOUT_MS),
    });
    status = res.status;
    const text = await res.text();
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
  } catch {
    status = 0;
  }
  const entry: Call = { op, deps, start, end: Date.now(), status };
  // The spec's error code; bulk's own `{success: false, error}` form gives a message.
  const code =
    parsed?.error?.code ?? (typeof parsed?.error === 'string' ? parsed.error.slice(0, 80) : undefined);
  if (typeof code === 'string') entry.code = code;
  if (ref) entry.ref = ref;
  h.calls.push(entry);
  return { status, body: parsed };
}

const VOUCHER_DEPS: Component[] = ['gateway', 'keys', 'vouchers', 'postgres'];
const BULK_DEPS: Component[] = [
  'gateway',
  'keys',
  'bulk',
  'certificates',
  'restate',
  'anvil',
  'postgres',
  'nats',
];
const KEY_DEPS: Component[] = ['gateway', 'keys', 'postgres'];

export interface Fixtures {
  key: string;
  /** One key per redemption worker. */
  redeemKeys: string[];
  vouchers: { id: string; code: string }[];
}

/** Creates the run's enterprise fixtures: a key, hot vouchers, webhook endpoints on the sinks. */
export async function setUp(
  h: History,
  gatewayUrl: string,
  session: string,
  sinks: Sinks,
  rng: Rng,
): Promise<Fixtures> {
  const must = async (what: string, p: Promise<{ status: number; body: any }>) => {
    const r = await p;
    if (r.status >= 300)
      throw new Error(`setting up the run: ${what} answered ${r.status} ${JSON.stringify(r.body)}`);
    return r.body;
  };
  const keyBody = await must(
    'creating the API key',
    call(h, gatewayUrl, 'createApiKey', KEY_DEPS, {
      method: 'POST',
      path: '/api/v1/api-keys',
      auth: session,
      body: { name: 'chaos', type: 'production', permissions: ['admin.*'], rateLimit: 100000 },
    }),
  );
  const key = keyBody.key as string;
  const redeemKeys: string[] = [];
  for (let i = 0; i < 3; i++)
    redeemKeys.push(
      (
        await must(
          'creating a redemption key',
          call(h, gatewayUrl, 'createApiKey', KEY_DEPS, {
            method: 'POST',
            path: '/api/v1/api-keys',
            auth: session,
            body: { name: `chaos redeem ${i}`, type: 'production', permissions: ['transactions.*'] },
          }),
        )
      ).key as string,
    );
  const vouchers: { id: string; code: string }[] = [];
  for (let i = 0; i < 4; i++) {
    const v = await createVoucher(h, gatewayUrl, key, rng.int(2, 6));
    if (!v) throw new Error('setting up the run: creating a voucher failed');
    vouchers.push(v);
  }
  for (let i = 0; i < 2; i++) {
    const p = `/hook/${i}`;
    const ep = await must(
      'creating a webhook endpoint',
      call(h, gatewayUrl, 'createWebhookEndpoint', ['gateway', 'notify'], {
        method: 'POST',
        path: '/api/v1/webhooks',
        auth: key,
        body: { url: sinks.url + p, events: ['transaction.created', 'transaction.completed'] },
      }),
    );
    sinks.route(p, ep.id, ep.secret);
  }
  return { key, redeemKeys, vouchers };
}

/** Runs every workload loop until `stop` aborts. */
export async function runWorkload(
  h: History,
  gatewayUrl: string,
  session: string,
  fixtures: Fixtures,
  imagesUrl: string,
  rng: Rng,
  stop: AbortSignal,
): Promise<void> {
  const loops: Promise<void>[] = [];
  const loop = (pauseMs: () => number, body: () => Promise<void>) =>
    loops.push(
      (async () => {
        while (!stop.aborted) {
          await body();
          await sleep(pauseMs());
        }
      })(),
    );

  // Hot vouchers: a fresh one joins the pool of four every few seconds and the oldest leaves,
  // so redemptions keep racing for the last uses instead of meeting only exhausted vouchers.
  const pool = fixtures.vouchers;
  loop(
    () => rng.int(2000, 4000),
    async () => {
      const v = await createVoucher(h, gatewayUrl, fixtures.key, rng.int(2, 6));
      if (v) {
        pool.push(v);
        pool.shift();
      }
    },
  );

  // Redemptions: the hot vouchers, order ids from a pool of ten (so repeats and races); a key
  // per worker keeps each under the per-key redeem limit (200/minute).
  for (const workerKey of fixtures.redeemKeys)
    loop(
      () => rng.int(250, 600),
      async () => {
        const v = rng.pick(pool);
        const orderId = `order_${rng.int(0, 9)}`;
        const r = await call(
          h,
          gatewayUrl,
          'redeemVoucher',
          VOUCHER_DEPS,
          {
            method: 'POST',
            path: '/api/v1/vouchers/redeem',
            auth: workerKey,
            body: { code: v.code, order_id: orderId, amount: 1000 },
          },
          `${v.id}/${orderId}`,
        );
        if (r.status === 200 && r.body?.transaction_id)
          h.redemptions.push({
            voucherId: v.id,
            orderId,
            transactionId: r.body.transaction_id,
            at: Date.now(),
          });
      },
    );

  // Bulk order jobs (small ones mint within the request, larger ones in the background),
  // sometimes the same Idempotency-Key twice.
  let lastKey: { key: string; body: ReturnType<typeof orderBody> } | undefined;
  loop(
    () => rng.int(1500, 4000),
    async () => {
      let body: ReturnType<typeof orderBody>;
      let key: string;
      if (lastKey && rng.chance(0.2)) ({ key, body } = lastKey);
      else {
        body = orderBody(rng.int(1, 8), { orderId: `gid://shopify/Order/${rng.int(1, 1e9)}` });
        for (const m of body.metadata as { imageUrl: string }[])
          m.imageUrl = `${imagesUrl}/img/${rng.int(1, 5)}.png`;
        key = idempotencyKeyOf(body);
        lastKey = { key, body };
      }
      const r = await call(
        h,
        gatewayUrl,
        'createBulkMintJob',
        BULK_DEPS,
        { method: 'POST', path: '/api/bulk-mint', auth: session, body, headers: { 'idempotency-key': key } },
        key,
      );
      const id = r.body?.jobId ?? r.body?.existingJobId;
      if (typeof id === 'string' && !h.jobs.some((j) => j.id === id)) h.jobs.push({ id, form: 'order' });
    },
  );

  // Small CSV jobs.
  loop(
    () => rng.int(3000, 7000),
    async () => {
      const rows = rng.int(1, 3);
      const lines = ['name,description,category,recipientEmail,imageUrl'];
      for (let i = 0; i < rows; i++)
        lines.push(
          `Item ${i},Chaos item,Watches,buyer${i}@example.com,${imagesUrl}/img/${rng.int(1, 5)}.png`,
        );
      const r = await call(h, gatewayUrl, 'createBulkMintJob', BULK_DEPS, {
        method: 'POST',
        path: '/api/bulk-mint',
        auth: session,
        form: csvForm(lines.join('\n')),
      });
      const id = r.body?.jobId;
      if (typeof id === 'string') h.jobs.push({ id, form: 'csv' });
    },
  );

  // API keys: create, use, rotate, revoke; a revoked key is tried again later.
  const revoked: { id: string; key: string }[] = [];
  loop(
    () => rng.int(1000, 3000),
    async () => {
      const created = await call(h, gatewayUrl, 'createApiKey', KEY_DEPS, {
        method: 'POST',
        path: '/api/v1/api-keys',
        auth: session,
        body: { name: `chaos ${randomBase62(6)}`, type: 'production', permissions: ['transactions.*'] },
      });
      if (created.status !== 201) return;
      const id = created.body.id as string;
      let key = created.body.key as string;
      await useKey(h, gatewayUrl, id, key);
      if (rng.chance(0.5)) {
        const rotated = await call(h, gatewayUrl, 'rotateApiKey', KEY_DEPS, {
          method: 'POST',
          path: `/api/v1/api-keys/${id}/rotate`,
          auth: session,
          body: { gracePeriodSeconds: 0 },
        });
        if (rotated.status === 200) key = rotated.body.key;
      }
      const del = await call(h, gatewayUrl, 'revokeApiKey', KEY_DEPS, {
        method: 'DELETE',
        path: `/api/v1/api-keys/${id}`,
        auth: session,
      });
      if (del.status === 200) {
        h.revocations.push({ keyId: id, ackAt: Date.now() });
        revoked.push({ id, key });
        await useKey(h, gatewayUrl, id, key);
      }
      for (let i = 0; i < 2 && revoked.length; i++) {
        const old = rng.pick(revoked);
        await useKey(h, gatewayUrl, old.id, old.key);
      }
    },
  );
  await Promise.all(loops);
  // Every revoked key once more, after everything.
  for (const k of revoked) await useKey(h, gatewayUrl, k.id, k.key);
}

async function createVoucher(
  h: History,
  gatewayUrl: string,
  key: string,
  maxUses: number,
): Promise<{ id: string; code: string } | undefined> {
  const r = await call(h, gatewayUrl, 'createVoucher', VOUCHER_DEPS, {
    method: 'POST',
    path: '/api/v1/vouchers',
    auth: key,
    body: { code: `CHAOS${randomBase62(10)}`, type: 'percentage', value: 10, max_uses: maxUses },
  });
  if (r.status !== 201) return undefined;
  h.vouchers.push({ id: r.body.id, maxUses });
  return { id: r.body.id, code: r.body.code };
}

async function useKey(h: History, gatewayUrl: string, keyId: string, key: string): Promise<void> {
  const start = Date.now();
  const r = await call(
    h,
    gatewayUrl,
    'listVouchers',
    VOUCHER_DEPS,
    { method: 'GET', path: '/api/v1/vouchers', auth: key },
    keyId,
  );
  h.keyUses.push({ keyId, start, status: r.status });
}
