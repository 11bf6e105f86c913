// The long tail of QR scans for the public-read bench (issue 31): many certificates, each read
// with a Zipf(1.1) distribution over them (a few scanned often, most once or twice).
//
// Populating 100,000 certificates through MintBatch (1,000 a batch) would run 100 relayer
// transactions and 100,000 certificate.minted events through NATS, the gateway caches and the
// credentials worker, all still busy while the bench measures. So the bench helper mints
// honestly but directly: each batch of up to 10,000 (the contract's MAX_BATCH_SIZE) is one
// real `mintBatch` transaction on anvil, from the relayer's key while the relayer is idle, with
// the Merkle root of the certificates' metadata hashes computed exactly as MintBatch computes
// them; its rows (batch, chain submission, certificates, `minted` provenance) are inserted in
// the certificates database as the relayer's confirmation would have recorded them, copied
// from the one certificate the bench minted through the service. Nothing else is skipped: the
// chain indexer indexes the batches from their logs like any other, and every read goes
// through the real gateway and service.
import type { TestStack } from '@hallmark/e2e';
import { newId, serviceDatabaseUrl } from '@hallmark/kit';
import { id as keccakUtf8 } from 'ethers';
import pg from 'pg';
import { buildBatchTree, CertificatesContract } from '../services/certificates/src/chain/contract.js';
import { anvilWallet, localProvider } from '../services/certificates/src/chain/dev-accounts.js';
import { metadataHashOf } from '../services/certificates/src/domain/certificate.js';
import { cpuPerRequest, loadSpread, table, verdict, type LoadResult } from './lib.js';

const CHAIN_BATCH = 10_000;

/**
 * A Zipf(s) sampler over ranks 0..n−1 (rank r drawn with probability ∝ 1/(r+1)^s), from a
 * seeded generator, so two runs with the same seed ask for the same sequence of ranks.
 */
export function zipf(n: number, s: number, seed: number): () => number {
  const cdf = new Float64Array(n);
  let sum = 0;
  for (let r = 0; r < n; r++) cdf[r] = sum += 1 / Math.pow(r + 1, s);
  let state = seed >>> 0 || 1;
  const random = () => {
    // xorshift32: fast, seeded, good enough to shape a load
    state ^= state << 13;
    state >>>= 0;
    state ^= state >>> 17;
    state ^= state << 5;
    state >>>= 0;
    return state / 0x1_0000_0000;
  };
  return () => {
    const u = random() * sum;
    let lo = 0;
    let hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cdf[mid]! < u) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
}

/** The share of `draws` Zipf draws that repeat an earlier draw (what a cache that never expires would hit). */
export function repeatShare(next: () => number, draws: number): number {
  const seen = new Set<number>();
  let repeats = 0;
  for (let i = 0; i < draws; i++) {
    const r = next();
    if (seen.has(r)) repeats++;
    else seen.add(r);
  }
  return repeats / draws;
}

interface Template {
  enterprise_id: string;
  livemode: boolean;
  holder_address: string;
  actor_id: string | null;
  request_hash: string;
  contract_address: string;
  image_url: string | null;
  metadata: Record<string, unknown>;
  p_actor: string | null;
}

/**
 * Mints `count` certificates like `templateId` on chain (batches of up to 10,000) and records
 * them in the certificates database; answers their ids, in random order (rank → certificate).
 */
export async function populate(stack: TestStack, templateId: string, count: number): Promise<string[]> {
  const db = new pg.Client({
    connectionString: serviceDatabaseUrl(stack.postgres.url, `${stack.prefix}_certificates`),
  });
  await db.connect();
  const provider = localProvider(
    stack.env.HALLMARK_CHAIN_RPC_URL!,
    Number(stack.env.HALLMARK_CHAIN_ID ?? 31337),
  );
  try {
    const { rows } = await db.query<Template>(
      `SELECT c.enterprise_id, c.livemode, c.holder_address, b.actor_id, b.request_hash, s.contract_address,
              c.image_url, c.metadata, p.actor AS p_actor
       FROM certificates c JOIN certificate_batches b ON b.id = c.batch_id
       JOIN chain_submissions s ON s.batch_id = c.batch_id
       JOIN provenance p ON p.certificate_id = c.id AND p.kind = 'minted'
       WHERE c.id = $1`,
      [templateId],
    );
    const t = rows[0]!;
    const minter = new CertificatesContract(t.contract_address, anvilWallet(0, provider));
    const ids: string[] = [];
    for (let start = 0; start < count; start += CHAIN_BATCH) {
      const quantity = Math.min(CHAIN_BATCH, count - start);
      const items = Array.from({ length: quantity }, (_, i) => {
        const name = `Bench Watch #${start + i + 1}`;
        const { tokenId: _t, warranty: _w, ...rest } = t.metadata;
        const metadata = { ...rest, name };
        return {
          id: newId('certificate'),
          name,
          metadata,
          hash: metadataHashOf(name, t.image_url, metadata),
        };
      });
      const tree = buildBatchTree(items.map((i) => i.hash));
      const idempotencyKey = `bench-long-tail-${newId('request')}`;
      const batchKey = keccakUtf8(idempotencyKey);
      const tx = await minter.mintBatch({
        to: t.holder_address,
        quantity: BigInt(quantity),
        merkleRoot: tree.root,
        batchKey,
        transferEvents: 'erc2309',
      });
      const receipt = (await tx.wait())!;
      const minted = minter.parseBatchMinted(receipt).find((e) => e.batchKey === batchKey)!;
      const batchId = newId('certificateBatch');
      await db.query('BEGIN');
      await db.query(
        `INSERT INTO certificate_batches (id, enterprise_id, livemode, idempotency_key, request_hash, holder_address,
           quantity, merkle_root, actor_id, status, transfer_events)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 'minted', 'erc2309')`,
        [
          batchId,
          t.enterprise_id,
          t.livemode,
          idempotencyKey,
          t.request_hash,
          t.holder_address,
          quantity,
          tree.root,
          t.actor_id,
        ],
      );
      await db.query(
        `INSERT INTO chain_submissions (batch_id, batch_key, contract_address, signer, tx_hash, status,
           first_token_id, block_number, confirmed_at)
         VALUES ($1, $2, $3, $4, $5, 'confirmed', $6, $7, now())`,
        [
          batchId,
          batchKey,
          t.contract_address,
          anvilWallet(0).address,
          receipt.hash,
          minted.firstTokenId.toString(),
          receipt.blockNumber,
        ],
      );
      await db.query(
        `INSERT INTO certificates (id, enterprise_id, livemode, batch_id, position, token_id, name, image_url, metadata,
           metadata_hash, holder_address, status, transaction_hash, block_number)
         SELECT u.id, $1, $2, $3, u.position, $4::numeric + u.position, u.name, $5, u.metadata, u.hash, $6, 'minted', $7, $8
         FROM unnest($9::text[], $10::int[], $11::text[], $12::jsonb[], $13::text[]) AS u(id, position, name, metadata, hash)`,
        [
          t.enterprise_id,
          t.livemode,
          batchId,
          minted.firstTokenId.toString(),
          t.image_url,
          t.holder_address,
          receipt.hash,
          receipt.blockNumber,
          items.map((i) => i.id),
          items.map((_, i) => i),
          items.map((i) => i.name),
          items.map((i) => JSON.stringify(i.metadata)),
          items.map((i) => i.hash),
        ],
      );
      await db.query(
        `INSERT INTO provenance (certificate_id, kind, actor, from_address, to_address, transaction_hash, block_number)
         SELECT id, 'minted', $2, '0x0000000000000000000000000000000000000000', $3, $4, $5 FROM unnest($1::text[]) AS id`,
        [items.map((i) => i.id), t.p_actor, t.holder_address, receipt.hash, receipt.blockNumber],
      );
      await db.query('COMMIT');
      ids.push(...items.map((i) => i.id));
    }
    // The chain indexer indexes the batches from their logs, as it would any relayer's.
    const last = await provider.getBlockNumber();
    for (let i = 0; ; i++) {
      const { rows: cp } = await db.query<{ value: string }>(
        "SELECT value FROM chain_state WHERE key LIKE 'chain-indexer:%'",
      );
      if (cp[0] && Number(cp[0].value) >= last) break;
      if (i > 600) throw new Error('the chain indexer did not index the long-tail batches');
      await new Promise((r) => setTimeout(r, 100));
    }
    // Rank → certificate: shuffled, so popularity has nothing to do with batch or position.
    for (let i = ids.length - 1; i > 0; i--) {
      const j = Math.floor(Math.random() * (i + 1));
      [ids[i], ids[j]] = [ids[j]!, ids[i]!];
    }
    return ids;
  } finally {
    provider.destroy();
    await db.end();
  }
}

interface Side {
  name: string;
  base: string;
  route: string;
  procs: { name: string; pid: number }[];
  /** Requests per client address (the verification JSON is limited to 60 a minute per client). */
  perAddress?: number;
}

/**
 * The long-tail rows: the bare process, the gateway's public read (cache on) and its
 * verification JSON, each reading `ids` by Zipf(1.1) rank from the same seeded sequence, in
 * alternating rounds. Prints the rows, the gateway's hit rate, the ratios (median of rounds) and
 * CPU per read; answers the public read's median ratio.
 */
export async function benchLongTail(o: {
  ids: string[];
  sides: [bare: Side, publicRead: Side, verification: Side];
  db: { url: string; database: string };
  rounds: number;
}): Promise<number> {
  const run = (side: Side, name: string, seed: number) => {
    const next = zipf(o.ids.length, 1.1, seed);
    return loadSpread(name, `${side.base}/`, {
      path: () => `${side.route}${o.ids[next()]}`,
      perAddress: side.perAddress,
    });
  };
  for (const side of o.sides) await run(side, 'warm-up', 7);
  const rows: LoadResult[] = [];
  const ratios: number[][] = o.sides.map(() => []);
  const cpu = o.sides.map(() => ({ ms: 0, n: 0, parts: new Map<string, number>() }));
  const hits = { hits: 0, count: 0 };
  for (let round = 1; round <= o.rounds; round++) {
    const results: LoadResult[] = [];
    for (const [i, side] of o.sides.entries()) {
      const { result, parts } = await cpuPerRequest(
        side.procs,
        o.db,
        () => run(side, `long tail round ${round}: ${side.name}`, 1000 + round),
        (r) => r.count!,
      );
      for (const [name, perRequest] of parts) {
        cpu[i]!.parts.set(name, (cpu[i]!.parts.get(name) ?? 0) + perRequest * result.count!);
      }
      cpu[i]!.n += result.count!;
      if (i === 1) {
        hits.hits += result.hits ?? 0;
        hits.count += result.count!;
      }
      results.push(result);
    }
    rows.push(...results);
    for (const [i, r] of results.entries()) ratios[i]!.push(r.rps / results[0]!.rps);
  }
  table(rows, rows[0]!);
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const perRead = (i: number) => {
    const parts = [...cpu[i]!.parts].filter(([name]) => name !== 'load generator');
    const total = parts.reduce((sum, [, ms]) => sum + ms, 0) / cpu[i]!.n;
    return {
      total,
      text: `${parts.map(([n, ms]) => `${n} ${(ms / cpu[i]!.n).toFixed(2)}`).join(', ')}; total ${total.toFixed(2)}`,
    };
  };
  console.log('');
  console.log(
    `long tail: ${o.ids.length} certificates read by Zipf(1.1) rank; a cache that never expired would hit ` +
      `${(100 * repeatShare(zipf(o.ids.length, 1.1, 1001), hits.count / o.rounds || 1)).toFixed(1)}% of a round's reads`,
  );
  console.log(
    `long tail, gateway public read hit rate: ${((100 * hits.hits) / Math.max(1, hits.count)).toFixed(2)}% of ${hits.count} reads`,
  );
  const m = median(ratios[1]!);
  console.log(
    `long tail, ${o.sides[1].name} ÷ bare, per round: ${ratios[1]!.map((r) => r.toFixed(2)).join(', ')}; ` +
      `median ${m.toFixed(2)}× (goal ≥ 1.0×: ${verdict(m >= 1)})`,
  );
  const v = median(ratios[2]!);
  console.log(
    `long tail, ${o.sides[2].name} ÷ bare public read, per round: ${ratios[2]!.map((r) => r.toFixed(2)).join(', ')}; ` +
      `median ${v.toFixed(2)}× (not the same JSON: the verification runs its five checks on the chain index besides the read; for scale, no goal)`,
  );
  for (const i of [0, 1, 2])
    console.log(`long tail, CPU ms per read, ${o.sides[i]!.name}: ${perRead(i).text}`);
  return m;
}
