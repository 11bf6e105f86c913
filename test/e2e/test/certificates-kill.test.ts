// Crash safety of minting through the real processes on anvil: the certificates service is
// SIGKILLed while the mintBatch transaction of a MintBatch of 1,000 is in flight (signed and
// broadcast, not yet mined: anvil's automine is paused so the moment is deterministic), the
// transaction is mined while the service is down, and a restarted service reconciles it with
// the chain instead of sending it again. The batch ends minted exactly once. Run in both event
// modes of the contract (HALLMARK_CHAIN_TRANSFER_EVENTS): one ERC-2309 ConsecutiveTransfer per
// batch (the default) and one Transfer per token.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createGrpcClient, newId, serviceDatabaseUrl, type GrpcClient } from '@hallmark/kit';
import { eventually } from '@hallmark/kit/testing';
import { CertificatesServiceClient, type MintItem } from '@hallmark/proto/certificates/v1/certificates';
import { Contract, JsonRpcProvider, id as keccakUtf8, zeroPadValue } from 'ethers';
import pg from 'pg';
import { startTestStack, type TestStack } from '../src/index.js';

const HOLDER = '0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc'; // anvil account 5
const QUANTITY = 1000;
const BATCH_MINTED_TOPIC = keccakUtf8('BatchMinted(bytes32,uint256,uint256,bytes32,address)');
const TRANSFER_TOPIC = keccakUtf8('Transfer(address,address,uint256)');
const CONSECUTIVE_TRANSFER_TOPIC = keccakUtf8('ConsecutiveTransfer(uint256,uint256,address,address)');
const ZERO_TOPIC = zeroPadValue('0x', 32);
const ABI = [
  'function batchByKey(bytes32 batchKey) view returns (bool minted, uint256 firstTokenId, uint256 quantity, address to, bytes32 merkleRootHigh)',
  'function ownerOf(uint256 tokenId) view returns (address)',
];

let stack: TestStack;
let client: GrpcClient<CertificatesServiceClient>;
let db: pg.Client;
let provider: JsonRpcProvider;

const items = (): MintItem[] =>
  Array.from({ length: QUANTITY }, (_, i) => ({
    name: `Kill test #${i + 1}`,
    metadata_json: JSON.stringify({ edition: i + 1 }),
  }));

async function submission(batchId: string) {
  const { rows } = await db.query<{
    status: string;
    batch_key: string;
    tx_hash: string | null;
    contract_address: string;
  }>('SELECT status, batch_key, tx_hash, contract_address FROM chain_submissions WHERE batch_id = $1', [
    batchId,
  ]);
  return rows[0]!;
}

describe.each(['erc2309', 'per-token'])(
  'certificates service (%s events) killed in the middle of a MintBatch of 1,000',
  (mode) => {
    beforeAll(async () => {
      stack = await startTestStack({
        anvil: true,
        logLevel: 'warn',
        env: { HALLMARK_CHAIN_TRANSFER_EVENTS: mode },
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

    it('a batch whose transaction was in flight when the service was killed ends minted exactly once after a restart', async () => {
      const service = stack.processes.get('certificates')!;
      // Hold mining: the relayer's transaction stays in the mempool, so the kill lands while the
      // submission is in flight (signed and sent, not confirmed).
      await provider.send('evm_setAutomine', [false]);
      const res = await client.api.mintBatch({
        principal: {
          enterprise_id: newId('enterprise'),
          livemode: true,
          actor_id: newId('apiKey'),
          actor_type: 'api_key',
          scopes: [],
        },
        idempotency_key: `kill-${Date.now()}`,
        holder_address: HOLDER,
        items: items(),
      });
      expect(res.certificates).toHaveLength(QUANTITY);
      expect(res.status).toBe('pending');

      const inFlight = await eventually(
        async () => {
          const s = await submission(res.batch_id);
          expect(s.status).toBe('sent');
          expect(s.tx_hash).toMatch(/^0x[0-9a-f]{64}$/);
          return s;
        },
        { timeoutMs: 20_000, intervalMs: 20 },
      );
      expect(await provider.send('eth_getTransactionByHash', [inFlight.tx_hash])).not.toBeNull();

      process.kill(service.pid, 'SIGKILL');
      await service.exited;
      // The transaction is mined while the service is down.
      await provider.send('evm_mine', []);
      await provider.send('evm_setAutomine', [true]);
      const killed = await submission(res.batch_id);
      expect(killed.status).toBe('sent'); // the dead process never recorded the outcome

      await stack.startService('certificates');
      await eventually(
        async () => {
          const { rows } = await db.query<{ pending: string }>(
            "SELECT count(*) FILTER (WHERE status <> 'minted') AS pending FROM certificates WHERE batch_id = $1",
            [res.batch_id],
          );
          expect(Number(rows[0]!.pending)).toBe(0);
        },
        { timeoutMs: 60_000, intervalMs: 250 },
      );

      const after = await submission(res.batch_id);
      expect(after.status).toBe('confirmed');
      expect(after.tx_hash).toBe(inFlight.tx_hash); // reconciled, not re-sent

      const { rows: certs } = await db.query<{ token_id: string; status: string; transaction_hash: string }>(
        'SELECT token_id, status, transaction_hash FROM certificates WHERE batch_id = $1 ORDER BY position',
        [res.batch_id],
      );
      expect(certs).toHaveLength(QUANTITY);
      const tokenIds = certs.map((c) => BigInt(c.token_id));
      expect(new Set(tokenIds.map(String)).size).toBe(QUANTITY);
      expect(certs.every((c) => c.status === 'minted' && c.transaction_hash === inFlight.tx_hash)).toBe(true);
      const { rows: batch } = await db.query<{ status: string }>(
        'SELECT status FROM certificate_batches WHERE id = $1',
        [res.batch_id],
      );
      expect(batch[0]!.status).toBe('minted');
      const { rows: prov } = await db.query<{ n: string }>(
        "SELECT count(*) AS n FROM provenance p JOIN certificates c ON c.id = p.certificate_id WHERE c.batch_id = $1 AND p.kind = 'minted'",
        [res.batch_id],
      );
      expect(Number(prov[0]!.n)).toBe(QUANTITY);

      // On chain: one BatchMinted for the batch key, 1,000 tokens, the same ids as the records.
      const logs = await provider.getLogs({
        address: inFlight.contract_address,
        topics: [BATCH_MINTED_TOPIC, inFlight.batch_key],
        fromBlock: 0,
        toBlock: 'latest',
      });
      expect(logs).toHaveLength(1);
      expect(logs[0]!.transactionHash).toBe(inFlight.tx_hash);
      const contract = new Contract(inFlight.contract_address, ABI, provider);
      const [minted, first, quantity] = (await contract
        .getFunction('batchByKey')
        .staticCall(inFlight.batch_key)) as [boolean, bigint, bigint];
      expect(minted).toBe(true);
      expect(quantity).toBe(BigInt(QUANTITY));
      expect(tokenIds[0]).toBe(first);
      expect(tokenIds[QUANTITY - 1]).toBe(first + BigInt(QUANTITY - 1));
      expect(await contract.getFunction('ownerOf').staticCall(first + BigInt(QUANTITY - 1))).toBe(HOLDER);
      // the batch's tokens, announced by the mode's events in the same transaction
      const receipt = (await provider.getTransactionReceipt(inFlight.tx_hash!))!;
      const ranges = receipt.logs.filter((l) => l.topics[0] === CONSECUTIVE_TRANSFER_TOPIC);
      const mints = receipt.logs.filter((l) => l.topics[0] === TRANSFER_TOPIC && l.topics[1] === ZERO_TOPIC);
      if (mode === 'erc2309') {
        expect(mints).toHaveLength(0);
        expect(ranges.map((l) => [BigInt(l.topics[1]!), BigInt(l.data)])).toEqual([
          [first, first + BigInt(QUANTITY - 1)],
        ]);
      } else {
        expect(ranges).toHaveLength(0);
        expect(mints.map((l) => BigInt(l.topics[3]!))).toEqual(tokenIds);
      }
    }, 120_000);
  },
);
