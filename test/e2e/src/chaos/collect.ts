// Reads the facts the invariants judge: every service's database, the NATS stream and the
// chain, after the run settled.
import { jsonRpc } from '@hallmark/devstack';
import { serviceQuery } from '../bulk.js';
import type { TestStack } from '../index.js';
import { natsServers, SERVICE_NAMES, STREAM_NAME } from '@hallmark/kit';
import { jetstream } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { Contract, id as keccakUtf8, JsonRpcProvider, Wallet, getAddress } from 'ethers';
import pg from 'pg';
import type { History } from './history.js';
import type { Facts } from './invariants.js';
import { orderGid } from './orders.js';

const ABI = [
  'function totalSupply() view returns (uint256)',
  'function exists(uint256 tokenId) view returns (bool)',
  'function ownerOf(uint256 tokenId) view returns (address)',
];
const TRANSFER_TOPIC = keccakUtf8('Transfer(address,address,uint256)');
const topicAddress = (topic: string) => getAddress(`0x${topic.slice(26)}`);

/** The simulated platform's fulfillments, by order gid: their tracking numbers. */
export type PlatformFulfillments = Map<string, (string | null)[]>;

export async function collectFacts(
  stack: TestStack,
  h: History,
  platform: { shop: string; fulfillments: PlatformFulfillments } | null = null,
): Promise<Facts> {
  const q = <T extends pg.QueryResultRow>(service: string, sql: string, params: unknown[] = []) =>
    serviceQuery<T>(stack, service, sql, params);

  const vouchers = (
    await q<{ id: string; max_uses: string | null; times_used: string; n: number }>(
      'vouchers',
      `SELECT v.id, v.max_uses, v.times_used,
              (SELECT count(*)::int FROM redemptions r WHERE r.voucher_id = v.id AND r.rolled_back_at IS NULL) AS n
         FROM vouchers v WHERE v.id = ANY($1)`,
      [h.vouchers.map((v) => v.id)],
    )
  ).map((r) => ({
    id: r.id,
    maxUses: r.max_uses === null ? null : Number(r.max_uses),
    timesUsed: Number(r.times_used),
    activeRedemptions: r.n,
  }));

  // Every redemption row of the run's vouchers, rolled back or not: an acknowledged redemption
  // must be among them (a failover to a standby that never got it loses it).
  const redemptionRows = (
    await q<{ voucher_id: string; order_id: string; transaction_id: string }>(
      'vouchers',
      'SELECT voucher_id, order_id, transaction_id FROM redemptions WHERE voucher_id = ANY($1)',
      [h.vouchers.map((v) => v.id)],
    )
  ).map((r) => ({ voucherId: r.voucher_id, orderId: r.order_id, transactionId: r.transaction_id }));

  const jobIds = h.jobs.map((j) => j.id);
  const jobs = await q<{ id: string; status: string }>(
    'bulk',
    'SELECT id, status FROM jobs WHERE id = ANY($1)',
    [jobIds],
  );
  const bulkItems = (
    await q<{
      job_id: string;
      idx: number;
      status: string;
      token_id: string | null;
      certificate_id: string | null;
      error: string | null;
    }>(
      'bulk',
      'SELECT job_id, idx, status, token_id::text, certificate_id, error FROM job_items WHERE job_id = ANY($1)',
      [jobIds],
    )
  ).map((r) => ({
    jobId: r.job_id,
    idx: r.idx,
    status: r.status,
    tokenId: r.token_id,
    certificateId: r.certificate_id,
    error: r.error,
  }));

  const certificates = (
    await q<{ id: string; token_id: string }>(
      'certificates',
      'SELECT id, token_id::text FROM certificates WHERE token_id IS NOT NULL',
    )
  ).map((r) => ({ id: r.id, tokenId: r.token_id }));

  // The chain.
  const rpcUrl = stack.anvil!.rpcUrl;
  const provider = new JsonRpcProvider(rpcUrl, undefined, { staticNetwork: true });
  const contracts = (
    await q<{ contract_address: string }>(
      'certificates',
      'SELECT DISTINCT contract_address FROM chain_submissions',
    )
  ).map((r) => new Contract(r.contract_address, ABI, provider));
  let chainSupply = 0;
  for (const c of contracts) chainSupply += Number(await c.getFunction('totalSupply')());
  const onChain = new Set<string>();
  for (let i = 0; i < certificates.length; i += 50) {
    await Promise.all(
      certificates.slice(i, i + 50).map(async (cert) => {
        for (const c of contracts)
          if (await c.getFunction('exists')(BigInt(cert.tokenId))) return onChain.add(cert.tokenId);
        return undefined;
      }),
    );
  }
  const gifts = await giftFacts(q, contracts, rpcUrl, h);
  const orders = platform ? await orderFacts(q, provider, h, platform) : [];
  const relayerAddress = new Wallet(stack.env.HALLMARK_RELAYER_KEY!).address;
  const nonce = async (tag: string) =>
    Number(await jsonRpc<string>(rpcUrl, 'eth_getTransactionCount', [relayerAddress, tag]));
  const relayer = { latestNonce: await nonce('latest'), pendingNonce: await nonce('pending') };
  provider.destroy();
  const openSubmissions = [
    ...(
      await q<{ batch_id: string; status: string }>(
        'certificates',
        `SELECT batch_id, status FROM chain_submissions WHERE status IN ('pending', 'signed', 'sent')`,
      )
    ).map((r) => `mint ${r.batch_id} (${r.status})`),
    ...(
      await q<{ id: string; status: string }>(
        'certificates',
        `SELECT id, status FROM certificate_transfers WHERE status IN ('pending', 'signed', 'sent')`,
      )
    ).map((r) => `transfer ${r.id} (${r.status})`),
  ];

  const feeBumped = (
    await q<{ n: number }>(
      'certificates',
      `SELECT (SELECT count(*)::int FROM chain_submissions WHERE cardinality(replaced_hashes) > 0)
            + (SELECT count(*)::int FROM certificate_transfers WHERE cardinality(replaced_hashes) > 0) AS n`,
    )
  )[0]!.n;

  // Outboxes: what each service committed, and what it has not published yet.
  const committed: {
    id: string;
    type: string;
    ent: string | null;
    livemode: boolean;
    service: string;
    published: boolean;
  }[] = [];
  for (const service of SERVICE_NAMES) {
    const rows = await q<{
      id: string;
      type: string;
      ent: string | null;
      livemode: boolean;
      published: boolean;
    }>(
      service,
      `SELECT id, type, payload->>'enterprise_id' AS ent, coalesce((payload->>'livemode')::boolean, true) AS livemode,
              published_at IS NOT NULL AS published
         FROM outbox`,
    ).catch(() => []);
    for (const r of rows) committed.push({ ...r, service });
  }
  const outboxLeft = committed.filter((e) => !e.published).map((e) => `${e.service}:${e.id}`);

  // Endpoints the run created, and the committed events each is owed.
  const endpoints = await q<{ id: string; events: string[]; enterprise_id: string; livemode: boolean }>(
    'notify',
    `SELECT id, events, enterprise_id, livemode FROM webhook_endpoints`,
  );
  const owedDeliveries: Facts['owedDeliveries'] = [];
  for (const e of committed)
    for (const ep of endpoints)
      if (ep.enterprise_id === e.ent && ep.livemode === e.livemode && ep.events.includes(e.type))
        owedDeliveries.push({ eventId: e.id, endpointId: ep.id, notify: 'no delivery row' });
  await explainOwed(q, owedDeliveries);

  return {
    vouchers,
    redemptionRows,
    jobs,
    bulkItems,
    certificates,
    onChain,
    chainSupply,
    relayer,
    openSubmissions,
    feeBumped,
    outboxLeft,
    owedDeliveries,
    streamIds: await streamEventIds(stack.nats.url),
    committedIds: committed.map((e) => e.id),
    gifts,
    orders,
  };
}

/**
 * What notify holds for each owed delivery, so a delivery the checker misses says where it
 * stopped: never fanned out (the event id not in the fan-out consumer's processed_events),
 * fanned out to no row (processed, no delivery), or a delivery row and its state.
 */
async function explainOwed(
  q: <T extends pg.QueryResultRow>(service: string, sql: string, params?: unknown[]) => Promise<T[]>,
  owed: Facts['owedDeliveries'],
): Promise<void> {
  const ids = [...new Set(owed.map((d) => d.eventId))];
  if (ids.length === 0) return;
  const processed = new Set(
    (
      await q<{ event_id: string }>(
        'notify',
        `SELECT event_id FROM processed_events WHERE consumer = 'notify-webhooks' AND event_id = ANY($1)`,
        [ids],
      )
    ).map((r) => r.event_id),
  );
  const rows = await q<{ event_id: string; endpoint_id: string; status: string; attempts: number }>(
    'notify',
    `SELECT event_id, endpoint_id, status, attempts
       FROM webhook_deliveries WHERE endpoint_id IS NOT NULL AND event_id = ANY($1)`,
    [ids],
  );
  const byKey = new Map(rows.map((r) => [`${r.endpoint_id}/${r.event_id}`, r]));
  for (const d of owed) {
    const row = byKey.get(`${d.endpointId}/${d.eventId}`);
    d.notify = row
      ? `delivery ${row.status}, ${row.attempts} attempt(s)`
      : processed.has(d.eventId)
        ? 'fanned out (id in processed_events) with no delivery row'
        : 'never fanned out (id not in processed_events)';
  }
}

/** The run's paid orders: bulk's jobs for each, the platform's record, the simulator's view. */
async function orderFacts(
  q: <T extends pg.QueryResultRow>(service: string, sql: string, params?: unknown[]) => Promise<T[]>,
  provider: JsonRpcProvider,
  h: History,
  platform: { shop: string; fulfillments: PlatformFulfillments },
): Promise<Facts['orders']> {
  if (h.orders.length === 0) return [];
  const gids = h.orders.map((o) => orderGid(o.orderId));
  const jobs = await q<{ id: string; status: string; order_id: string; minted: number; failed: string[] }>(
    'bulk',
    `SELECT j.id, j.status, j.external_context->>'orderId' AS order_id,
            (SELECT count(*)::int FROM job_items i WHERE i.job_id = j.id AND i.token_id IS NOT NULL) AS minted,
            ARRAY(SELECT i.idx || ': ' || i.error FROM job_items i
                   WHERE i.job_id = j.id AND i.token_id IS NULL AND i.error IS NOT NULL) AS failed
       FROM jobs j WHERE j.external_context->>'orderId' = ANY($1)`,
    [gids],
  );
  const records = await q<{ order_id: string; transaction_hash: string | null; fulfilment: string | null }>(
    'platform',
    `SELECT o.order_id, o.transaction_hash, f.status AS fulfilment
       FROM orders o LEFT JOIN fulfilments f ON f.shop = o.shop AND f.order_id = o.order_id
      WHERE o.shop = $1 AND o.order_id = ANY($2)`,
    [platform.shop, gids],
  );
  const byGid = new Map(records.map((r) => [r.order_id, r]));
  const facts: Facts['orders'] = [];
  for (const o of h.orders) {
    const gid = orderGid(o.orderId);
    const r = byGid.get(gid);
    const hash = r?.transaction_hash ?? null;
    const receipt = hash ? await provider.getTransactionReceipt(hash).catch(() => null) : null;
    facts.push({
      gid,
      units: o.units,
      jobs: jobs
        .filter((j) => j.order_id === gid)
        .map(({ id, status, minted, failed }) => ({ id, status, minted, failed })),
      transactionHash: hash,
      fulfilment: r?.fulfilment ?? null,
      platformFulfillments: platform.fulfillments.get(gid) ?? [],
      txMined: receipt?.status === 1,
    });
  }
  return facts;
}

/** The token's Transfer events in one transaction (its receipt's logs). */
async function movesIn(
  rpcUrl: string,
  hash: string,
  tokenId: string,
): Promise<{ from: string; to: string }[]> {
  const receipt = await jsonRpc<{ status: string; logs: { topics: string[] }[] } | null>(
    rpcUrl,
    'eth_getTransactionReceipt',
    [hash],
  );
  if (receipt?.status !== '0x1') return [];
  return receipt.logs
    .filter(
      (l) =>
        l.topics[0] === TRANSFER_TOPIC &&
        l.topics.length === 4 &&
        BigInt(l.topics[3]!).toString() === tokenId,
    )
    .map((l) => ({ from: topicAddress(l.topics[1]!), to: topicAddress(l.topics[2]!) }));
}

/** The run's gifts: the record (or `gone`, expired), the token's owner and its moves on chain. */
async function giftFacts(
  q: <T extends pg.QueryResultRow>(service: string, sql: string, params?: unknown[]) => Promise<T[]>,
  contracts: Contract[],
  rpcUrl: string,
  h: History,
): Promise<Facts['gifts']> {
  if (h.gifts.length === 0) return [];
  const rows = await q<{
    id: string;
    status: string;
    recipient_address: string | null;
    transaction_hash: string | null;
    transfers: number;
  }>(
    'certificates',
    `SELECT g.id, g.status, g.recipient_address, g.transaction_hash,
            -- Moves from the gift's sender (a voucher claim may have brought it to the sender first).
            (SELECT count(*)::int FROM certificate_transfers t
              WHERE t.certificate_id = g.certificate_id AND lower(t.from_address) = lower(g.sender_address)) AS transfers
       FROM gifts g WHERE g.id = ANY($1)`,
    [h.gifts.map((g) => g.id)],
  );
  const byId = new Map(rows.map((r) => [r.id, r]));
  const facts: Facts['gifts'] = [];
  for (const g of h.gifts) {
    const r = byId.get(g.id);
    let owner = '';
    for (const c of contracts) {
      owner = await (c.getFunction('ownerOf')(BigInt(g.tokenId)) as Promise<string>).catch(() => '');
      if (owner) break;
    }
    facts.push({
      id: g.id,
      certificateId: g.certificateId,
      tokenId: g.tokenId,
      status: r?.status ?? 'gone',
      recipientAddress: r?.recipient_address ?? null,
      senderAddress: g.senderAddress,
      transferRecords: r?.transfers ?? 0,
      owner,
      moves: r?.transaction_hash ? await movesIn(rpcUrl, r.transaction_hash, g.tokenId) : [],
    });
  }
  return facts;
}

/** The event ids in the stream: an ordered consumer read from the first message to the last. */
async function streamEventIds(url: string): Promise<Set<string>> {
  const nc = await connect({ servers: natsServers(url), name: 'chaos-checker' });
  const ids = new Set<string>();
  try {
    const js = jetstream(nc);
    const consumer = await js.consumers.get(STREAM_NAME);
    for (;;) {
      const batch = await consumer.fetch({ max_messages: 500, expires: 2000 });
      let n = 0;
      let pending = 0;
      for await (const m of batch) {
        n++;
        pending = m.info.pending;
        const id = m.headers?.get('Nats-Msg-Id') || (m.json<{ id?: string }>().id ?? '');
        if (id) ids.add(id);
      }
      if (n === 0 || pending === 0) break;
    }
  } finally {
    await nc.close();
  }
  return ids;
}
