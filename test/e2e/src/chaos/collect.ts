// Reads the facts the invariants judge: every service's database, the NATS stream and the
// chain, after the run settled.
import { jsonRpc, type Stack } from '@hallmark/devstack';
import { SERVICE_NAMES, STREAM_NAME } from '@hallmark/kit';
import { jetstream } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { Contract, JsonRpcProvider, Wallet } from 'ethers';
import pg from 'pg';
import type { History } from './history.js';
import type { Facts } from './invariants.js';

/** One query on one service's database of the stack. */
export async function serviceQuery<T extends pg.QueryResultRow>(
  stack: Stack,
  prefix: string,
  service: string,
  sql: string,
  params: unknown[] = [],
): Promise<T[]> {
  const url = new URL(stack.postgres.url);
  url.pathname = `/${prefix}_${service}`;
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  try {
    return (await client.query<T>(sql, params)).rows;
  } finally {
    await client.end();
  }
}

const ABI = [
  'function totalSupply() view returns (uint256)',
  'function exists(uint256 tokenId) view returns (bool)',
];

export async function collectFacts(stack: Stack, prefix: string, h: History): Promise<Facts> {
  const q = <T extends pg.QueryResultRow>(service: string, sql: string, params: unknown[] = []) =>
    serviceQuery<T>(stack, prefix, service, sql, params);

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
        owedDeliveries.push({ eventId: e.id, endpointId: ep.id });

  return {
    vouchers,
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
  };
}

/** The event ids in the stream: an ordered consumer read from the first message to the last. */
async function streamEventIds(url: string): Promise<Set<string>> {
  const nc = await connect({ servers: url, name: 'chaos-checker' });
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
