// Certificate vouchers and GetMintBatch on a real PostgreSQL and a real anvil, handlers
// in-process: batches minted to the enterprise's custodial holding account, vouchers created
// for their certificates (idempotent, reference numbers, events, recipient data encrypted), and
// claims by recipients' user sessions moving the token on chain to the recipient's own wallet.
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path, { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { freePort, startAnvil, type AnvilHandle } from '@hallmark/devstack';
import { createLogger, Encryptor, HallmarkError, newId, openDatabase, type Pool } from '@hallmark/kit';
import { closeTestDatabase, TEST_DATABASE_SERVER, uniqueDatabaseName } from '@hallmark/kit/testing';
import type { MintBatchResponse } from '@hallmark/proto/certificates/v1/certificates';
import type { CreateVouchersRequest, VoucherItem } from '@hallmark/proto/certificates/v1/vouchers';
import type { Principal } from '@hallmark/proto/common/v1/common';
import { Relayer } from '../src/chain/relayer.js';
import type { Chain } from '../src/chain/setup.js';
import { connectTestChain } from './test-chain.js';
import { createCertificatesHandlers } from '../src/rpc.js';
import { CertificatesStore } from '../src/store.js';
import { TransferService } from '../src/transfers/service.js';
import { withTransfers } from '../src/transfers/workers/passes.js';
import { CertificateVoucherClaims } from '../src/certificate-vouchers/claim.js';
import { parseReferenceNumber } from '../src/certificate-vouchers/domain.js';
import { createCertificateVoucherHandlers } from '../src/certificate-vouchers/rpc.js';
import { CertificateVoucherStore, recordVouchersMinted } from '../src/certificate-vouchers/store.js';
import { WalletStore } from '../src/wallets/store.js';

const MIGRATIONS_DIR = path.join(import.meta.dirname, '..', 'migrations');
const CALL = { requestId: 'req_test', deadlineMs: Infinity };
const log = createLogger('certificates-test', 'silent');
const anvilLog = join(tmpdir(), `hallmark-anvil-vouchers-${process.pid}.log`);
const KEYS = Encryptor.generateKey();
const PUBLIC_URL = 'https://hallmark.test';

let anvil: AnvilHandle;
let database: string;
let pool: Pool;
let chain: Chain;
let relayer: Relayer;
let api: ReturnType<typeof createCertificatesHandlers>;
let vouchers: ReturnType<typeof createCertificateVoucherHandlers>;
let voucherStore: CertificateVoucherStore;
let wallets: WalletStore;
let store: CertificatesStore;

const issuerOf = (ent = newId('enterprise')): Principal => ({
  enterprise_id: ent,
  livemode: true,
  actor_id: newId('apiKey'),
  actor_type: 'api_key',
  scopes: [],
});
const issuer = issuerOf();

/** A recipient's user session: their own enterprise, not the issuer's. */
const recipient = (user = newId('user'), ent = newId('enterprise')): Principal => ({
  enterprise_id: ent,
  livemode: true,
  actor_id: user,
  actor_type: 'user',
  scopes: ['admin.*'],
});

beforeAll(async () => {
  anvil = await startAnvil({ port: await freePort(), logFile: anvilLog });
  database = uniqueDatabaseName('certificates');
  pool = await openDatabase({
    serverUrl: TEST_DATABASE_SERVER,
    database,
    migrationsDirs: [MIGRATIONS_DIR],
    max: 8,
  });
  chain = await connectTestChain(anvil, pool, log);
  store = new CertificatesStore(pool, () => chain.contract.address);
  relayer = new Relayer({
    pool,
    provider: chain.provider,
    signer: chain.signer,
    contract: chain.contract,
    chainId: chain.chainId,
    confirmations: 1,
    store,
    afterMinted: recordVouchersMinted, // as bootstrap.ts wires it
    log,
    receiptTimeoutMs: 20_000,
  });
  wallets = new WalletStore(pool, KEYS);
  const transfers: TransferService = new TransferService({
    pool,
    store,
    wallets,
    chain: () => ({
      relayer,
      provider: chain.provider,
      signer: chain.signer,
      chainId: chain.chainId,
      confirmations: 1,
    }),
    log,
    // As the mint worker's pass does in the service.
    onRecorded: () => void driven.processOpen(),
    waitMs: 20_000,
    receiptTimeoutMs: 20_000,
  });
  const driven = withTransfers(relayer, transfers);
  api = createCertificatesHandlers({ store, provider: chain.provider, wallets, transfers, batchPollMs: 50 });
  voucherStore = new CertificateVoucherStore(pool, { publicUrl: PUBLIC_URL, encryptionKeys: KEYS });
  vouchers = createCertificateVoucherHandlers({
    vouchers: voucherStore,
    certificates: store,
    claims: new CertificateVoucherClaims({ store: voucherStore, wallets, transfers }),
  });
}, 60_000);

afterAll(async () => {
  chain?.provider.destroy();
  await closeTestDatabase(pool, database);
  await anvil?.stop();
  rmSync(anvilLog, { force: true });
});

/** A batch minted to the issuer's holding account (minted on chain unless `pending`). */
async function mintBatch(key: string, n: number, opts: { pending?: boolean; p?: Principal } = {}) {
  const res = await api.mintBatch(
    {
      principal: opts.p ?? issuer,
      idempotency_key: key,
      holder_address: '',
      holder_account: { kind: 'enterprise', id: '' },
      items: Array.from({ length: n }, (_, i) => ({
        name: `${key} #${i + 1}`,
        image_url: `https://img.hallmark.test/${key}/${i + 1}.png`,
      })),
    },
    CALL,
  );
  if (!opts.pending) await relayer.processOpen();
  return res;
}

const itemsFor = (batch: MintBatchResponse, extra: Partial<VoucherItem> = {}): VoucherItem[] =>
  batch.certificates.map((c, i) => ({
    certificate_id: c.id,
    metadata_json: JSON.stringify({ sku: `SKU-${i + 1}`, lineItem: i }),
    expiry_days: 30,
    line_item_gid: `gid://shopify/LineItem/${1000 + i}`,
    ...extra,
  }));

const create = (key: string, items: VoucherItem[], p: Principal = issuer) =>
  vouchers.createVouchers(
    { principal: p, idempotency_key: key, items } satisfies CreateVouchersRequest,
    CALL,
  );

async function errorOf(p: Promise<unknown>): Promise<HallmarkError> {
  try {
    await p;
  } catch (err) {
    return err as HallmarkError;
  }
  throw new Error('expected a refusal');
}

/** The per-voucher events of `type` recorded for the vouchers, on their own or in a batch event. */
async function events(type: string, voucherIds: string[], form: 'any' | 'single' | 'batch' = 'any') {
  const { rows } = await pool.query<{
    payload: { enterprise_id: string; data: { object: Record<string, any> } };
  }>(
    `SELECT payload FROM (
       SELECT seq, payload FROM outbox
       WHERE $3 <> 'batch' AND type = $1 AND payload->'data'->'object'->>'id' = ANY($2::text[])
       UNION ALL
       SELECT o.seq, jsonb_set(o.payload, '{data}', jsonb_build_object('object', v)) FROM outbox o,
         jsonb_array_elements(o.payload->'data'->(CASE WHEN $1 = 'certificate_voucher.created' THEN 'created' ELSE 'minted' END)) v
       WHERE $3 <> 'single' AND o.type = 'certificate_voucher.batch' AND v->>'id' = ANY($2::text[])) e
     ORDER BY seq`,
    [type, voucherIds, form],
  );
  return rows.map((r) => r.payload);
}

describe('GetMintBatch', () => {
  it('waits while the batch is pending and answers it minted with its certificates; scoped to the enterprise', async () => {
    const batch = await mintBatch('gmb-1', 2, { pending: true });
    const now = await api.getMintBatch(
      { principal: issuer, batch_id: batch.batch_id, wait_ms: 0, status_only: false },
      CALL,
    );
    expect(now).toMatchObject({ batch_id: batch.batch_id, status: 'pending' });
    const started = Date.now();
    const waiting = api.getMintBatch(
      { principal: issuer, batch_id: batch.batch_id, wait_ms: 20_000, status_only: false },
      CALL,
    );
    setTimeout(() => void relayer.processOpen(), 300);
    const minted = await waiting;
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(minted.status).toBe('minted');
    expect(minted.certificates.map((c) => c.id)).toEqual(batch.certificates.map((c) => c.id));
    expect(minted.certificates.every((c) => c.status === 'minted' && c.token_id !== undefined)).toBe(true);

    for (const [p, id] of [
      [issuerOf(), batch.batch_id],
      [{ ...issuer, livemode: false }, batch.batch_id],
      [issuer, newId('certificateBatch')],
      [issuer, 'batch_nope'],
    ] as const) {
      expect(
        await errorOf(api.getMintBatch({ principal: p, batch_id: id, wait_ms: 0, status_only: false }, CALL)),
      ).toMatchObject({
        code: 'resource_not_found',
      });
    }
  }, 60_000);

  it('a bounded wait on a batch still pending answers pending when wait_ms runs out', async () => {
    const batch = await mintBatch('gmb-2', 1, { pending: true });
    const started = Date.now();
    const res = await api.getMintBatch(
      { principal: issuer, batch_id: batch.batch_id, wait_ms: 400, status_only: false },
      CALL,
    );
    expect(res.status).toBe('pending');
    expect(Date.now() - started).toBeGreaterThanOrEqual(350);
    await relayer.processOpen();
  }, 60_000);
});

describe('CreateVouchers', () => {
  it('creates one voucher per certificate: v_ id, view URL, checked reference number, expiry, events to the issuing enterprise', async () => {
    const batch = await mintBatch('cv-1', 3);
    const before = Date.now();
    const res = await create(
      'cv-1:0',
      itemsFor(batch, { recipient_email: 'Ada.Lovelace@example.com', recipient_name: 'Ada' }),
    );
    expect(res.replayed).toBe(false);
    expect(res.vouchers).toHaveLength(3);
    res.vouchers.forEach((v, i) => {
      expect(v.id).toMatch(/^v_[0-9A-Za-z]{24}$/);
      expect(v.url).toBe(`${PUBLIC_URL}/vouchers/${v.id}`);
      expect(parseReferenceNumber(v.reference_number)).toBe(v.reference_number);
      expect(v).toMatchObject({
        certificate_id: batch.certificates[i]!.id,
        status: 'available',
        line_item_gid: `gid://shopify/LineItem/${1000 + i}`,
        token_id: expect.any(Number),
        transaction_hash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
      });
      expect(JSON.parse(v.metadata_json)).toEqual({ sku: `SKU-${i + 1}`, lineItem: i });
      const expires = Date.parse(v.expires_at) - before;
      expect(expires).toBeGreaterThanOrEqual(30 * 86_400_000 - 5_000);
      expect(expires).toBeLessThanOrEqual(30 * 86_400_000 + 60_000);
    });
    const ids = res.vouchers.map((v) => v.id);
    const created = await events('certificate_voucher.created', ids);
    const minted = await events('certificate_voucher.minted', ids);
    expect(created).toHaveLength(3);
    expect(minted).toHaveLength(3); // the certificates were minted already
    for (const e of [...created, ...minted]) {
      expect(e.enterprise_id).toBe(issuer.enterprise_id);
      expect(Object.keys(e.data.object)).toEqual(
        expect.arrayContaining([
          'id',
          'url',
          'referenceNumber',
          'metadata',
          'certificateId',
          'tokenId',
          'transactionHash',
          'blockNumber',
          'expiresAt',
          'lineItemGid',
        ]),
      );
      expect(JSON.stringify(e)).not.toMatch(/lovelace/i);
      expect(JSON.stringify(e)).not.toContain('"Ada"');
    }
  }, 60_000);

  it('stores the recipient e-mail and name only encrypted', async () => {
    const batch = await mintBatch('cv-enc', 1);
    const [v] = (
      await create(
        'cv-enc',
        itemsFor(batch, { recipient_email: 'grace@example.com', recipient_name: 'Grace Hopper' }),
      )
    ).vouchers;
    const { rows } = await pool.query<Record<string, unknown>>(
      'SELECT * FROM certificate_vouchers WHERE id = $1',
      [v!.id],
    );
    const row = rows[0]!;
    expect(JSON.stringify(row)).not.toMatch(/grace|hopper/i);
    const enc = new Encryptor(KEYS);
    expect(enc.decrypt(row.recipient_email_enc as string)).toBe('grace@example.com');
    expect(enc.decrypt(row.recipient_name_enc as string)).toBe('Grace Hopper');
  }, 60_000);

  it('a replay answers the same vouchers and records nothing; the key with another request, or a certificate that has a voucher, is a conflict', async () => {
    const batch = await mintBatch('cv-2', 2);
    const items = itemsFor(batch);
    const first = await create('cv-2:0', items);
    const again = await create('cv-2:0', items);
    expect(again.replayed).toBe(true);
    expect(again.vouchers).toEqual(first.vouchers);
    const ids = first.vouchers.map((v) => v.id);
    expect(await events('certificate_voucher.created', ids)).toHaveLength(2);
    expect(await events('certificate_voucher.minted', ids)).toHaveLength(2);

    expect(await errorOf(create('cv-2:0', itemsFor(batch, { expiry_days: 7 })))).toMatchObject({
      code: 'resource_already_exists',
      param: 'idempotency_key',
    });
    expect(await errorOf(create('cv-2:other', items.slice(1)))).toMatchObject({
      code: 'resource_already_exists',
      param: 'items[0].certificate_id',
    });
    // Nothing of the refused requests was recorded.
    const { rows } = await pool.query(
      'SELECT 1 FROM certificate_voucher_requests WHERE idempotency_key = $1',
      ['cv-2:other'],
    );
    expect(rows).toHaveLength(0);
  }, 60_000);

  it('refuses certificates of another enterprise or mode and unknown ones as not found', async () => {
    const batch = await mintBatch('cv-3', 1);
    const items = itemsFor(batch);
    expect(await errorOf(create('cv-3', items, issuerOf()))).toMatchObject({ code: 'resource_not_found' });
    expect(await errorOf(create('cv-3', items, { ...issuer, livemode: false }))).toMatchObject({
      code: 'resource_not_found',
    });
    expect(
      await errorOf(create('cv-3', [{ ...items[0]!, certificate_id: newId('certificate') }])),
    ).toMatchObject({
      code: 'resource_not_found',
    });
  }, 60_000);

  it('gives 500 vouchers 500 distinct, valid reference numbers; the database refuses a duplicate', async () => {
    const batch = await mintBatch('cv-many', 500);
    const res = await create('cv-many', itemsFor(batch));
    const refs = res.vouchers.map((v) => v.reference_number);
    expect(new Set(refs).size).toBe(500);
    expect(refs.every((r) => parseReferenceNumber(r) === r)).toBe(true);
    const dup = await errorOf(
      pool.query(`UPDATE certificate_vouchers SET reference_number = $1 WHERE id = $2`, [
        refs[0],
        res.vouchers[1]!.id,
      ]),
    );
    expect((dup as unknown as { constraint: string }).constraint).toBe('certificate_vouchers_reference');
  }, 120_000);

  it('voucher.minted comes once, when the batch of a voucher created while pending is confirmed', async () => {
    const batch = await mintBatch('cv-pending', 2, { pending: true });
    const res = await create('cv-pending', itemsFor(batch));
    expect(res.vouchers.every((v) => v.token_id === undefined)).toBe(true);
    const ids = res.vouchers.map((v) => v.id);
    expect(await events('certificate_voucher.created', ids)).toHaveLength(2);
    expect(await events('certificate_voucher.minted', ids)).toHaveLength(0);

    await relayer.processOpen();
    await relayer.processOpen();
    const minted = await events('certificate_voucher.minted', ids);
    expect(minted).toHaveLength(2);
    const certs = (
      await api.getMintBatch(
        { principal: issuer, batch_id: batch.batch_id, wait_ms: 0, status_only: false },
        CALL,
      )
    ).certificates;
    for (const e of minted) {
      const c = certs.find((x) => x.id === e.data.object.certificateId)!;
      expect(e.data.object).toMatchObject({
        tokenId: c.token_id,
        transactionHash: c.transaction_hash,
        blockNumber: c.block_number,
      });
      expect(e.enterprise_id).toBe(issuer.enterprise_id);
    }
    // A replay of the creation after the mint records nothing either.
    await create('cv-pending', itemsFor(batch));
    expect(await events('certificate_voucher.minted', ids)).toHaveLength(2);
  }, 60_000);
  it('more than 10 vouchers: their created and minted go out in certificate_voucher.batch events, never one per voucher', async () => {
    const batch = await mintBatch('cv-batch-events', 12, { pending: true });
    const ids = (await create('cv-batch-events', itemsFor(batch))).vouchers.map((v) => v.id);
    expect(await events('certificate_voucher.created', ids, 'batch')).toHaveLength(12);
    await relayer.processOpen();
    const minted = await events('certificate_voucher.minted', ids, 'batch');
    expect(minted.map((e) => e.data.object.id).sort()).toEqual([...ids].sort());
    expect(minted.every((e) => e.enterprise_id === issuer.enterprise_id && e.data.object.tokenId > 0)).toBe(
      true,
    );
    expect(await events('certificate_voucher.created', ids, 'single')).toHaveLength(0);
    expect(await events('certificate_voucher.minted', ids, 'single')).toHaveLength(0);
    const { rows } = await pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM outbox WHERE type = 'certificate_voucher.batch'
         AND (payload->'data'->'created' @> $1::jsonb OR payload->'data'->'minted' @> $1::jsonb)`,
      [JSON.stringify([{ id: ids[0] }])],
    );
    expect(rows[0]!.n).toBe(2); // one at creation, one at the confirmation
  }, 60_000);

  it('voucher.minted exactly once per voucher when creation races the batch confirmation', async () => {
    for (let round = 0; round < 4; round++) {
      // 10 vouchers: one event each; 12: batch events (kit events › certificate_voucher.batch)
      const batch = await mintBatch(`cv-race-${round}`, round % 2 ? 12 : 10, { pending: true });
      const [res] = await Promise.all([create(`cv-race-${round}`, itemsFor(batch)), relayer.processOpen()]);
      await relayer.processOpen();
      const ids = res.vouchers.map((v) => v.id);
      const minted = await events('certificate_voucher.minted', ids);
      expect(minted.map((e) => e.data.object.id).sort()).toEqual([...ids].sort());
    }
  }, 90_000);
});

describe('GetPublicVoucher', () => {
  it('finds a voucher by id or by its reference number as typed, with its certificate; a mistyped reference is not found', async () => {
    const batch = await mintBatch('pub-1', 1);
    const [v] = (await create('pub-1', itemsFor(batch, { recipient_email: 'x@example.com' }))).vouchers;
    const byId = await vouchers.getPublicVoucher({ voucher_id: v!.id }, CALL);
    expect(byId.voucher).toEqual(v);
    expect(byId.enterprise_id).toBe(issuer.enterprise_id);
    expect(JSON.parse(byId.certificate_json)).toMatchObject({
      id: batch.certificates[0]!.id,
      name: 'pub-1 #1',
      imageUrl: 'https://img.hallmark.test/pub-1/1.png',
      status: 'minted',
      tokenId: v!.token_id,
    });
    expect(byId.certificate_json).not.toContain('x@example.com');
    const typed = v!.reference_number.toLowerCase().replace(/-/g, ' ');
    expect((await vouchers.getPublicVoucher({ voucher_id: typed }, CALL)).voucher!.id).toBe(v!.id);
    const ref = v!.reference_number;
    const typo = `${ref.slice(0, 3)}${ref[3] === '7' ? '8' : '7'}${ref.slice(4)}`;
    for (const id of [typo, newId('certificateVoucher'), 'nonsense']) {
      expect(await errorOf(vouchers.getPublicVoucher({ voucher_id: id }, CALL))).toMatchObject({
        code: 'resource_not_found',
      });
    }
  }, 60_000);
});

describe('ClaimVoucher', () => {
  it('moves the token on chain from the holding account to the recipient’s own wallet; the same recipient replays, another is refused', async () => {
    const batch = await mintBatch('claim-1', 1);
    const [v] = (await create('claim-1', itemsFor(batch, { recipient_email: 'Ada@Example.com' }))).vouchers;
    const holding = await api.ensureWallet(
      { principal: issuer, owner: { kind: 'enterprise', id: '' } },
      CALL,
    );
    const tokenId = BigInt(v!.token_id!);
    expect(await chain.contract.ownerOf(tokenId)).toBe(holding.address);

    const ada = recipient();
    const res = await vouchers.claimVoucher(
      { principal: ada, voucher_id: v!.reference_number, recipient_email: 'ada@example.com' },
      CALL,
    );
    // The recipient's wallet lives in the recipient's own enterprise.
    const wallet = await api.ensureWallet(
      { principal: ada, owner: { kind: 'user', id: ada.actor_id } },
      CALL,
    );
    expect(wallet.created).toBe(false);
    expect(res).toMatchObject({
      transfer_status: 'confirmed',
      to_address: wallet.address,
      transaction_hash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
      block_number: expect.any(Number),
      replayed: false,
      voucher: { id: v!.id, status: 'claimed', claimed_at: expect.any(String) },
    });
    expect(await chain.contract.ownerOf(tokenId)).toBe(wallet.address);

    const cert = await api.getCertificate({ principal: issuer, certificate_id: v!.certificate_id }, CALL);
    expect(cert.holder_address).toBe(wallet.address);
    expect(cert.provenance.map((p) => p.kind)).toEqual(['minted', 'claimed', 'transferred']);
    expect(cert.provenance[1]).toMatchObject({
      actor: ada.actor_id,
      from: holding.address,
      to: wallet.address,
    });
    expect(cert.provenance[2]).toMatchObject({ actor: ada.actor_id, transaction_hash: res.transaction_hash });
    const { rows } = await pool.query(
      'SELECT claimed_by, claimed_by_enterprise, claim_transfer_key FROM certificate_vouchers WHERE id = $1',
      [v!.id],
    );
    expect(rows[0]).toEqual({
      claimed_by: ada.actor_id,
      claimed_by_enterprise: ada.enterprise_id,
      claim_transfer_key: `claim:${v!.id}`,
    });
    expect((await vouchers.getPublicVoucher({ voucher_id: v!.id }, CALL)).voucher!.status).toBe('claimed');

    // The same recipient again: the same claim, nothing sent.
    const block = await chain.provider.getBlockNumber();
    const again = await vouchers.claimVoucher(
      { principal: ada, voucher_id: v!.id, recipient_email: 'ada@example.com' },
      CALL,
    );
    expect(again).toMatchObject({
      replayed: true,
      transaction_hash: res.transaction_hash,
      transfer_status: 'confirmed',
    });
    expect(await chain.provider.getBlockNumber()).toBe(block);

    // Someone else: refused, whoever they are.
    const eve = await errorOf(vouchers.claimVoucher({ principal: recipient(), voucher_id: v!.id }, CALL));
    expect(eve).toMatchObject({ code: 'validation_failed' });
    expect(eve.message).toMatch(/already been claimed/);
    expect(await chain.contract.ownerOf(tokenId)).toBe(wallet.address);
  }, 90_000);

  it('two recipients racing for one voucher: exactly one wins', async () => {
    const batch = await mintBatch('claim-race', 1);
    const [v] = (await create('claim-race', itemsFor(batch))).vouchers;
    const results = await Promise.allSettled(
      [recipient(), recipient()].map((p) => vouchers.claimVoucher({ principal: p, voucher_id: v!.id }, CALL)),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const lost = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    expect(lost.reason).toMatchObject({ code: 'validation_failed' });
  }, 90_000);

  it('a recipient has one wallet whichever enterprise issued the voucher', async () => {
    const other = issuerOf();
    const [a, b] = [await mintBatch('claim-w-a', 1), await mintBatch('claim-w-b', 1, { p: other })];
    const [va] = (await create('claim-w', itemsFor(a))).vouchers;
    const [vb] = (await create('claim-w', itemsFor(b), other)).vouchers;
    const grace = recipient();
    const ra = await vouchers.claimVoucher({ principal: grace, voucher_id: va!.id }, CALL);
    const rb = await vouchers.claimVoucher({ principal: grace, voucher_id: vb!.id }, CALL);
    expect(rb.to_address).toBe(ra.to_address);
    expect(await chain.contract.ownerOf(va!.token_id!)).toBe(ra.to_address);
    expect(await chain.contract.ownerOf(vb!.token_id!)).toBe(ra.to_address);
  }, 90_000);

  it('refuses an expired voucher (saying when it expired), another recipient’s e-mail, a pending certificate, and an API key', async () => {
    const batch = await mintBatch('claim-no', 2);
    const pending = await mintBatch('claim-no-pending', 1, { pending: true });
    const [expired, emailed] = (
      await create('claim-no', itemsFor(batch, { recipient_email: 'ada@example.com' }))
    ).vouchers;
    const [notMinted] = (await create('claim-no-pending', itemsFor(pending))).vouchers;
    await pool.query(`UPDATE certificate_vouchers SET expires_at = '2026-01-02T03:04:00Z' WHERE id = $1`, [
      expired!.id,
    ]);

    const late = await errorOf(
      vouchers.claimVoucher({ principal: recipient(), voucher_id: expired!.id }, CALL),
    );
    expect(late).toMatchObject({
      code: 'validation_failed',
      message: 'This voucher expired on 2026-01-02 at 03:04 UTC.',
    });
    expect((await vouchers.getPublicVoucher({ voucher_id: expired!.id }, CALL)).voucher!.status).toBe(
      'expired',
    );

    const eve = recipient();
    const wrong = await errorOf(
      vouchers.claimVoucher(
        { principal: eve, voucher_id: emailed!.id, recipient_email: 'eve@example.com' },
        CALL,
      ),
    );
    expect(wrong).toMatchObject({ code: 'insufficient_permissions' });
    // Refused before anything was written: not even a wallet for the refused user.
    const { rows: evesWallets } = await pool.query('SELECT 1 FROM wallets WHERE owner_id = $1', [
      eve.actor_id,
    ]);
    expect(evesWallets).toHaveLength(0);

    const early = await errorOf(
      vouchers.claimVoucher({ principal: recipient(), voucher_id: notMinted!.id }, CALL),
    );
    expect(early).toMatchObject({ code: 'validation_failed' });
    expect(early.message).toMatch(/try again shortly/);

    expect(
      await errorOf(vouchers.claimVoucher({ principal: issuer, voucher_id: emailed!.id }, CALL)),
    ).toMatchObject({
      code: 'insufficient_permissions',
    });
    // None of the refusals claimed anything or moved a token.
    const { rows } = await pool.query(
      'SELECT count(*)::int AS n FROM certificate_vouchers WHERE claimed_by IS NOT NULL AND id = ANY($1)',
      [[expired!.id, emailed!.id, notMinted!.id]],
    );
    expect(rows[0]).toEqual({ n: 0 });
    await relayer.processOpen();
  }, 90_000);

  it('a claim whose chain transfer fails is sent again until the token is in the recipient’s wallet', async () => {
    // A sender that records but never sends (as if the process died), so the test decides
    // what the chain did: the first transfer is made to fail.
    const idle = new TransferService({
      pool,
      store,
      wallets,
      chain: () => ({
        relayer,
        provider: chain.provider,
        signer: chain.signer,
        chainId: chain.chainId,
        confirmations: 1,
      }),
      log,
      waitMs: 0,
    });
    const claims = new CertificateVoucherClaims({ store: voucherStore, wallets, transfers: idle, log });
    const batch = await mintBatch('claim-fail-once', 1);
    const [v] = (await create('claim-fail-once', itemsFor(batch, { recipient_email: 'lin@example.com' })))
      .vouchers;
    const lin = recipient();
    const first = await claims.claim(lin, v!.id, 'LIN@example.com');
    expect(first.transfer.status).toBe('pending');
    await idle.sender.fail(first.transfer.id, 'injected: the chain refused this transfer', null);

    // The repair pass sends it again under a new key; the worker's pass delivers it.
    expect(await claims.repairPass()).toBe(1);
    await withTransfers(relayer, idle).processOpen();
    const wallet = await api.ensureWallet(
      { principal: lin, owner: { kind: 'user', id: lin.actor_id } },
      CALL,
    );
    expect(await chain.contract.ownerOf(BigInt(v!.token_id!))).toBe(wallet.address);
    const { rows } = await pool.query(
      'SELECT claimed_by, claim_transfer_key, claim_attempts FROM certificate_vouchers WHERE id = $1',
      [v!.id],
    );
    expect(rows[0]).toEqual({
      claimed_by: lin.actor_id,
      claim_transfer_key: `claim:${v!.id}:2`,
      claim_attempts: 2,
    });
    expect(await claims.repairPass()).toBe(0);
    // Confirmed: the claim left the open claims the pass reads.
    const settled = await pool.query('SELECT claim_settled_at FROM certificate_vouchers WHERE id = $1', [
      v!.id,
    ]);
    expect(settled.rows[0].claim_settled_at).toBeInstanceOf(Date);
    const again = await claims.claim(lin, v!.id, 'lin@example.com');
    expect(again).toMatchObject({ replayed: true, transfer: { status: 'confirmed' } });
  }, 90_000);

  it('a claim whose transfer keeps failing is undone: the voucher is claimable again, provenance says so', async () => {
    const idle = new TransferService({
      pool,
      store,
      wallets,
      chain: () => ({
        relayer,
        provider: chain.provider,
        signer: chain.signer,
        chainId: chain.chainId,
        confirmations: 1,
      }),
      log,
      waitMs: 0,
    });
    const claims = new CertificateVoucherClaims({
      store: voucherStore,
      wallets,
      transfers: idle,
      log,
      maxAttempts: 2,
    });
    const batch = await mintBatch('claim-fail-always', 1);
    const [v] = (await create('claim-fail-always', itemsFor(batch))).vouchers;
    const first = await claims.claim(recipient(), v!.id, null);
    await idle.sender.fail(first.transfer.id, 'injected', null);
    expect(await claims.repairPass()).toBe(1); // attempt 2
    const { rows: t } = await pool.query<{ id: string }>(
      'SELECT id FROM certificate_transfers WHERE transfer_key = $1',
      [`claim:${v!.id}:2`],
    );
    await idle.sender.fail(t[0]!.id, 'injected again', null);
    expect(await claims.repairPass()).toBe(1); // undone
    const view = await vouchers.getPublicVoucher({ voucher_id: v!.id }, CALL);
    expect(view.voucher!.status).toBe('available');
    const cert = await api.getCertificate({ principal: issuer, certificate_id: v!.certificate_id }, CALL);
    expect(cert.provenance.map((p) => p.kind)).toEqual(['minted', 'claimed', 'claim_reverted']);
    // And it can be claimed again, for real this time.
    const res = await vouchers.claimVoucher({ principal: recipient(), voucher_id: v!.id }, CALL);
    expect(res.transfer_status).toBe('confirmed');
  }, 90_000);
});
