// Crash safety of transfers through the real processes on anvil: the certificates service is
// SIGKILLed while a Transfer's transferWithPermit transaction is in flight (signed and
// broadcast, not yet mined: anvil's automine is paused so the moment is deterministic), the
// transaction is mined while the service is down, and the restarted service reconciles it with
// the chain instead of sending it again. The token moves once and is recorded once.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createGrpcClient, newId, serviceDatabaseUrl, type GrpcClient } from '@hallmark/kit';
import { eventually } from '@hallmark/kit/testing';
import { CertificatesServiceClient } from '@hallmark/proto/certificates/v1/certificates';
import type { Principal } from '@hallmark/proto/common/v1/common';
import { Contract, JsonRpcProvider, id as keccakUtf8, zeroPadValue, toBeHex } from 'ethers';
import pg from 'pg';
import { startTestStack, type TestStack } from '../src/index.js';

const TRANSFER_TOPIC = keccakUtf8('Transfer(address,address,uint256)');
// ERC-2309: the service's default deployment announces a whole batch with one of these
const CONSECUTIVE_TRANSFER_TOPIC = keccakUtf8('ConsecutiveTransfer(uint256,uint256,address,address)');
const ABI = ['function ownerOf(uint256 tokenId) view returns (address)'];

let stack: TestStack;
let client: GrpcClient<CertificatesServiceClient>;
let db: pg.Client;
let provider: JsonRpcProvider;

beforeAll(async () => {
  stack = await startTestStack({ anvil: true, logLevel: 'warn' });
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

interface TransferRecord {
  status: string;
  tx_hash: string | null;
  replaced_hashes: string[];
  to_address: string;
  from_address: string;
}

async function transferRow(key: string): Promise<TransferRecord | undefined> {
  const { rows } = await db.query<TransferRecord>(
    `SELECT status, tx_hash, replaced_hashes, to_address, from_address FROM certificate_transfers
     WHERE transfer_key = $1`,
    [key],
  );
  return rows[0];
}

describe('certificates service killed in the middle of a Transfer', () => {
  it('a transfer whose transaction was in flight when the service was killed is reconciled after a restart: same hash, one move, one provenance entry, one event', async () => {
    const principal: Principal = {
      enterprise_id: newId('enterprise'),
      livemode: true,
      actor_id: newId('apiKey'),
      actor_type: 'api_key',
      scopes: [],
    };
    // A certificate held by the enterprise's custodial holding account.
    const minted = await client.api.mintBatch({
      principal,
      idempotency_key: `xfer-kill-mint-${Date.now()}`,
      holder_address: '',
      holder_account: { kind: 'enterprise', id: '' },
      items: [{ name: 'Transfer kill test' }],
    });
    const certId = minted.certificates[0]!.id;
    const cert = await eventually(
      async () => {
        const c = await client.api.getCertificate({ principal, certificate_id: certId });
        expect(c.status).toBe('minted');
        return c;
      },
      { timeoutMs: 30_000, intervalMs: 200 },
    );
    const tokenId = BigInt(cert.token_id!);
    const holding = cert.holder_address;

    // Hold mining: the transfer's transaction stays in the mempool, so the kill lands while it
    // is in flight (signed and sent, not confirmed).
    await provider.send('evm_setAutomine', [false]);
    const key = `xfer-kill-${Date.now()}`;
    const recipientUser = newId('user');
    const request = { principal, certificate_id: certId, idempotency_key: key, to_user_id: recipientUser };
    const pendingCall = client.api.transfer(request).catch((err: unknown) => err);

    const inFlight = await eventually(
      async () => {
        const t = await transferRow(key);
        expect(t?.status).toBe('sent');
        expect(t?.tx_hash).toMatch(/^0x[0-9a-f]{64}$/);
        return t!;
      },
      { timeoutMs: 20_000, intervalMs: 20 },
    );
    expect(await provider.send('eth_getTransactionByHash', [inFlight.tx_hash])).not.toBeNull();

    const service = stack.processes.get('certificates')!;
    process.kill(service.pid, 'SIGKILL');
    await service.exited;
    await pendingCall; // the caller saw the connection drop; the transfer is recorded anyway
    // The transaction is mined while the service is down.
    await provider.send('evm_mine', []);
    await provider.send('evm_setAutomine', [true]);
    expect((await transferRow(key))!.status).toBe('sent'); // the dead process never recorded it

    await stack.startService('certificates');
    const after = await eventually(
      async () => {
        const t = await transferRow(key);
        expect(t?.status).toBe('confirmed');
        return t!;
      },
      { timeoutMs: 60_000, intervalMs: 250 },
    );
    expect(after.tx_hash).toBe(inFlight.tx_hash); // reconciled, not re-sent
    expect(after.replaced_hashes).toEqual([]);
    expect(after.from_address).toBe(holding);

    // The recipient (the user's custodial wallet) holds it, on chain and in the record.
    const { rows: wallet } = await db.query<{ address: string }>(
      "SELECT address FROM wallets WHERE owner_kind = 'user' AND owner_id = $1",
      [recipientUser],
    );
    expect(after.to_address).toBe(wallet[0]!.address);
    const contract = new Contract((await contractAddress())!, ABI, provider);
    expect(await contract.getFunction('ownerOf').staticCall(tokenId)).toBe(after.to_address);
    const read = await client.api.getCertificate({ principal, certificate_id: certId });
    expect(read.holder_address).toBe(after.to_address);
    expect(read.provenance.map((p) => p.kind)).toEqual(['minted', 'transferred']);
    expect(read.provenance[1]).toMatchObject({
      from: holding,
      to: after.to_address,
      transaction_hash: inFlight.tx_hash,
    });

    // Exactly one certificate.transferred, naming the in-flight transaction.
    const { rows: events } = await db.query<{ hash: string }>(
      `SELECT payload->'data'->'transfer'->>'transactionHash' AS hash FROM outbox
       WHERE type = 'certificate.transferred' AND payload->'data'->'object'->>'id' = $1`,
      [certId],
    );
    expect(events.map((e) => e.hash)).toEqual([inFlight.tx_hash]);

    // On chain the token moved twice in all: its mint (one ConsecutiveTransfer covering the
    // batch, or its own Transfer on a per-token deployment) and this one transfer.
    const address = await contractAddress();
    const transfers = await provider.getLogs({
      address,
      topics: [TRANSFER_TOPIC, null, null, zeroPadValue(toBeHex(tokenId), 32)],
      fromBlock: 0,
      toBlock: 'latest',
    });
    const ranges = await provider.getLogs({ address, topics: [CONSECUTIVE_TRANSFER_TOPIC], fromBlock: 0 });
    const mintRanges = ranges.filter((l) => BigInt(l.topics[1]!) <= tokenId && tokenId <= BigInt(l.data));
    const moves = [...mintRanges, ...transfers].sort(
      (a, b) => a.blockNumber - b.blockNumber || a.index - b.index,
    );
    expect(moves.map((l) => l.transactionHash)).toEqual([cert.transaction_hash, inFlight.tx_hash]);

    // A replay of the Transfer answers the recorded outcome and sends nothing.
    const block = await provider.getBlockNumber();
    const replay = await client.api.transfer(request);
    expect(replay).toMatchObject({ status: 'confirmed', replayed: true, transaction_hash: inFlight.tx_hash });
    expect(await provider.getBlockNumber()).toBe(block);
  }, 180_000);
});

async function contractAddress(): Promise<string> {
  const { rows } = await db.query<{ contract_address: string }>(
    'SELECT contract_address FROM chain_submissions LIMIT 1',
  );
  return rows[0]!.contract_address;
}
