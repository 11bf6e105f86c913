// Kill -9 during a gift claim: the recipient's claim has taken the token and the gift
// workflow's chain transfer is signed and broadcast but not mined (anvil's automine paused, so
// the moment is deterministic) when both the certificates service and the Restate server are
// SIGKILLed. The transaction is mined while they are down. After both restart, Restate resumes
// the workflow, the relayer reconciles the in-flight transaction instead of sending another,
// and the gift ends `claimed`: exactly one transfer, on chain and in the records.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createGrpcClient, newId, serviceDatabaseUrl, type GrpcClient } from '@hallmark/kit';
import { eventually } from '@hallmark/kit/testing';
import { CertificatesServiceClient } from '@hallmark/proto/certificates/v1/certificates';
import { Contract, JsonRpcProvider, id as keccakUtf8, toBeHex, zeroPadValue } from 'ethers';
import pg from 'pg';
import { startTestStack, type TestStack } from '../src/index.js';

const TRANSFER_TOPIC = keccakUtf8('Transfer(address,address,uint256)');

let stack: TestStack;
let certificates: GrpcClient<CertificatesServiceClient>;
let provider: JsonRpcProvider;
let db: pg.Client;

beforeAll(async () => {
  stack = await startTestStack({
    anvil: true,
    restate: true,
    smtp: true,
    env: { HALLMARK_CERTIFICATES_MINT_INTERVAL_MS: '200' },
  });
  certificates = createGrpcClient(CertificatesServiceClient, stack.env.HALLMARK_CERTIFICATES_ADDR!, {
    deadlineMs: 40_000,
  });
  provider = new JsonRpcProvider(stack.env.HALLMARK_CHAIN_RPC_URL, Number(stack.env.HALLMARK_CHAIN_ID), {
    staticNetwork: true,
  });
  db = new pg.Client({
    connectionString: serviceDatabaseUrl(stack.postgres.url, `${stack.prefix}_certificates`),
  });
  await db.connect();
}, 180_000);

afterAll(async () => {
  await provider?.send('evm_setAutomine', [true]).catch(() => undefined);
  provider?.destroy();
  certificates?.close();
  await db?.end();
  await stack?.close();
}, 60_000);

describe('certificates and Restate killed during a gift claim', () => {
  it('the claim ends claimed with exactly one transfer: one transaction, one record, one provenance entry', async () => {
    const enterprise = newId('enterprise');
    const principal = {
      enterprise_id: enterprise,
      livemode: true,
      actor_id: newId('apiKey'),
      actor_type: 'api_key',
      scopes: [],
    };
    const batch = await certificates.api.mintBatch({
      principal,
      idempotency_key: 'gift-kill',
      holder_address: '',
      holder_account: { kind: 'enterprise', id: '' },
      items: [{ name: 'Kill test watch' }],
    });
    const minted = await certificates.api.getMintBatch({
      principal,
      batch_id: batch.batch_id,
      wait_ms: 30_000,
      status_only: false,
    });
    const cert = minted.certificates[0]!;
    const tokenId = BigInt(cert.token_id!);
    const sender = await stack.token({ ent: enterprise, sub: 'sender' });
    const created = await stack.call('POST', '/api/certificates/gift/create', {
      auth: sender,
      body: { certificateId: cert.id, recipientEmail: 'kill@example.com' },
    });
    expect(created.status).toBe(201);
    const { transferId, claimToken } = created.body;

    // The recipient signs in first: provisioning puts their wallet on the allowlist, a relayer
    // transaction of its own, which must be mined before mining is held.
    const recipient = await stack.token({ sub: 'kill-recipient' });
    await stack.call('GET', '/api/v1/templates', { auth: recipient });
    await eventually(
      async () => {
        // The sender's and the recipient's entries, both on chain.
        const { rows } = await db.query<{ status: string }>('SELECT status FROM allowlist_entries');
        expect(rows.map((r) => r.status)).toEqual(['success', 'success']);
      },
      { timeoutMs: 30_000, intervalMs: 100 },
    );
    // Hold mining, claim, and wait until the workflow's transfer is broadcast.
    await provider.send('evm_setAutomine', [false]);
    const claiming = stack
      .call('POST', `/api/certificates/gift/claim/${claimToken}`, { auth: recipient })
      .catch((err: unknown) => err);
    const inFlight = await eventually(
      async () => {
        const { rows } = await db.query<{ status: string; tx_hash: string }>(
          'SELECT status, tx_hash FROM certificate_transfers WHERE transfer_key = $1',
          [`gift:${transferId}`],
        );
        expect(rows[0]?.status).toBe('sent');
        return rows[0]!;
      },
      { timeoutMs: 30_000, intervalMs: 20 },
    );

    // Kill -9 both, mine while they are down, start both again.
    const service = stack.processes.get('certificates')!;
    process.kill(service.pid, 'SIGKILL');
    process.kill(stack.restate!.pid, 'SIGKILL');
    await Promise.all([service.exited, stack.restate!.exited]);
    await claiming;
    await provider.send('evm_mine', []);
    await provider.send('evm_setAutomine', [true]);
    await stack.restartRestate();
    await stack.startService('certificates');

    const gift = await eventually(
      async () => {
        const res = await stack.call('GET', `/api/certificates/gift/${transferId}`, { auth: sender });
        expect(res.body?.gift?.status).toBe('claimed');
        return res.body.gift;
      },
      { timeoutMs: 90_000, intervalMs: 500 },
    );
    expect(gift.transactionHash).toBe(inFlight.tx_hash); // reconciled, not re-sent

    // Exactly one transfer record, one `transferred` and one `gifted` provenance entry.
    const { rows: transfers } = await db.query(
      'SELECT transfer_key, status FROM certificate_transfers WHERE certificate_id = $1',
      [cert.id],
    );
    expect(transfers).toEqual([{ transfer_key: `gift:${transferId}`, status: 'confirmed' }]);
    const { rows: prov } = await db.query<{ kind: string }>(
      'SELECT kind FROM provenance WHERE certificate_id = $1 ORDER BY seq',
      [cert.id],
    );
    expect(prov.map((p) => p.kind)).toEqual(['minted', 'transferred', 'gifted']);

    // On chain: one Transfer of the token after its mint, to the recipient's wallet.
    const { rows: addr } = await db.query<{ value: string }>(
      "SELECT value FROM chain_state WHERE key = 'contract:31337'",
    );
    const contract = new Contract(
      addr[0]!.value,
      ['function ownerOf(uint256) view returns (address)'],
      provider,
    );
    expect(await contract.getFunction('ownerOf')(tokenId)).toBe(gift.recipientAddress);
    const moves = await provider.getLogs({
      address: addr[0]!.value,
      topics: [TRANSFER_TOPIC, null, null, zeroPadValue(toBeHex(tokenId), 32)],
      fromBlock: 0,
      toBlock: 'latest',
    });
    expect(moves.map((l) => l.transactionHash)).toEqual([inFlight.tx_hash]);

    // A later claim by the same recipient answers the same outcome and sends nothing.
    const block = await provider.getBlockNumber();
    const again = await stack.call('POST', `/api/certificates/gift/claim/${claimToken}`, { auth: recipient });
    expect(again.body).toMatchObject({
      status: 'claimed',
      replayed: true,
      transactionHash: inFlight.tx_hash,
    });
    expect(await provider.getBlockNumber()).toBe(block);
  }, 300_000);
});
