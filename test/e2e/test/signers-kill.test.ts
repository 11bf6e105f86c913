// Two mint signers never share a nonce, across a crash: the certificates service runs with
// HALLMARK_RELAYER_SIGNERS=2 and two transactions in flight per signer; six MintBatch calls
// are recorded while anvil's automine is paused, so both signers have signed and broadcast
// transactions (and the rest wait, claimed or not) when the process is SIGKILLed. One of the
// broadcasts is then dropped from the node's pool (lost, as a node restart would lose it),
// the rest are mined while the service is down, and a restarted service finishes every batch:
// each batch key is minted exactly once on chain, every (signer, nonce) pair is used by one
// submission only, and both signers minted.
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { createGrpcClient, newId, serviceDatabaseUrl, type GrpcClient } from '@hallmark/kit';
import { eventually } from '@hallmark/kit/testing';
import { CertificatesServiceClient } from '@hallmark/proto/certificates/v1/certificates';
import { JsonRpcProvider, id as keccakUtf8 } from 'ethers';
import pg from 'pg';
import { startTestStack, type TestStack } from '../src/index.js';

const HOLDER = '0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc'; // anvil account 5
const BATCHES = 6;
const QUANTITY = 50;
const BATCH_MINTED_TOPIC = keccakUtf8('BatchMinted(bytes32,uint256,uint256,bytes32,address)');

let stack: TestStack;
let client: GrpcClient<CertificatesServiceClient>;
let db: pg.Client;
let provider: JsonRpcProvider;

interface Row {
  batch_id: string;
  batch_key: string;
  status: string;
  signer: string | null;
  nonce: string | null;
  tx_hash: string | null;
  replaced_hashes: string[];
  contract_address: string;
}

const submissions = async () =>
  (
    await db.query<Row>(
      `SELECT batch_id, batch_key, status, signer, nonce, tx_hash, replaced_hashes, contract_address
       FROM chain_submissions ORDER BY id`,
    )
  ).rows;

beforeAll(async () => {
  stack = await startTestStack({
    anvil: true,
    logLevel: 'warn',
    env: { HALLMARK_RELAYER_SIGNERS: '2', HALLMARK_RELAYER_MAX_IN_FLIGHT: '2' },
  });
  client = createGrpcClient(CertificatesServiceClient, stack.env.HALLMARK_CERTIFICATES_ADDR!);
  db = new pg.Client({
    connectionString: serviceDatabaseUrl(stack.postgres.url, `${stack.prefix}_certificates`),
  });
  await db.connect();
  provider = new JsonRpcProvider(stack.env.HALLMARK_CHAIN_RPC_URL, Number(stack.env.HALLMARK_CHAIN_ID), {
    staticNetwork: true,
  });
}, 120_000);

afterAll(async () => {
  await provider?.send('evm_setAutomine', [true]).catch(() => undefined);
  provider?.destroy();
  await db?.end();
  client?.close();
  await stack?.close();
}, 60_000);

it('two signers killed mid-batch never reuse a nonce: after a restart every batch is minted exactly once', async () => {
  const service = stack.processes.get('certificates')!;
  await provider.send('evm_setAutomine', [false]);
  const principal = {
    enterprise_id: newId('enterprise'),
    livemode: true,
    actor_id: newId('apiKey'),
    actor_type: 'api_key',
    scopes: [],
  };
  const batchIds: string[] = [];
  for (let b = 0; b < BATCHES; b++) {
    const res = await client.api.mintBatch({
      principal,
      idempotency_key: `signers-kill-${Date.now()}-${b}`,
      holder_address: HOLDER,
      items: Array.from({ length: QUANTITY }, (_, i) => ({
        name: `Signers #${b}.${i}`,
        metadata_json: JSON.stringify({ b, i }),
      })),
    });
    batchIds.push(res.batch_id);
  }

  // Both signers have their window full: two broadcast transactions each, the rest waiting.
  const inFlight = await eventually(
    async () => {
      const sent = (await submissions()).filter((s) => s.status === 'sent');
      expect(new Set(sent.map((s) => s.signer)).size).toBe(2);
      expect(sent).toHaveLength(4);
      return sent;
    },
    { timeoutMs: 30_000, intervalMs: 20 },
  );
  process.kill(service.pid, 'SIGKILL');
  await service.exited;

  // One broadcast is lost from the node's pool (the restarted relayer must send its persisted
  // bytes again, with the same nonce); the others are mined while the service is down.
  const lost = inFlight.find((s) => s.signer === inFlight[0]!.signer && s.nonce !== inFlight[0]!.nonce)!;
  await provider.send('anvil_dropTransaction', [lost.tx_hash]);
  await provider.send('evm_mine', []);
  await provider.send('evm_setAutomine', [true]);

  await stack.startService('certificates');
  const done = await eventually(
    async () => {
      const rows = await submissions();
      expect(rows.map((s) => s.status)).toEqual(Array(BATCHES).fill('confirmed'));
      return rows;
    },
    { timeoutMs: 60_000, intervalMs: 250 },
  );

  // No nonce of either signer went to two submissions, and both signers minted.
  const pairs = done.map((s) => `${s.signer!.toLowerCase()}:${s.nonce}`);
  expect(new Set(pairs).size).toBe(BATCHES);
  expect(new Set(done.map((s) => s.signer!.toLowerCase())).size).toBe(2);
  // Each submission was signed once, by one signer: nothing signed again or by the other one.
  expect(done.map((s) => s.replaced_hashes)).toEqual(Array(BATCHES).fill([]));
  // The lost transaction was sent again as it was: same nonce, same hash.
  expect(done.find((s) => s.batch_id === lost.batch_id)!.tx_hash).toBe(lost.tx_hash);

  // On chain: one BatchMinted per batch key, from the signer and nonce recorded.
  const contract = done[0]!.contract_address;
  const logs = await provider.getLogs({ address: contract, topics: [BATCH_MINTED_TOPIC], fromBlock: 0 });
  expect(logs).toHaveLength(BATCHES);
  expect(new Set(logs.map((l) => l.topics[1])).size).toBe(BATCHES);
  for (const s of done) {
    const log = logs.find((l) => l.topics[1] === s.batch_key)!;
    expect(log.transactionHash).toBe(s.tx_hash);
    const tx = (await provider.getTransaction(s.tx_hash!))!;
    expect([tx.from.toLowerCase(), tx.nonce]).toEqual([s.signer!.toLowerCase(), Number(s.nonce)]);
  }
  const { rows: certs } = await db.query<{ n: string; tokens: string }>(
    `SELECT count(*) FILTER (WHERE status = 'minted') AS n, count(DISTINCT token_id) AS tokens
     FROM certificates WHERE batch_id = ANY($1)`,
    [batchIds],
  );
  expect([Number(certs[0]!.n), Number(certs[0]!.tokens)]).toEqual([BATCHES * QUANTITY, BATCHES * QUANTITY]);
}, 150_000);
