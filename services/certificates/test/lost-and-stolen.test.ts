// Lost and stolen (docs/lost-and-stolen.md) on a real PostgreSQL and a real anvil, the slices
// in-process: the brand or the owner reports a certificate stolen or lost; while the report is
// open every hand-over path is refused 409 `certificate_reported_stolen` (Transfer, gift create
// and claim, certificate voucher create and claim, the guard the resale flow calls); the
// public read carries the flag; clearing follows the brand's policy; the brand recovers a token
// from a custodial wallet to a new owner on chain (`recovered` provenance, the report ended)
// and is refused for a self-custody holder; other tenants see nothing; every change leaves its
// event in the outbox in the same transaction.
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path, { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { freePort, startAnvil, type AnvilHandle } from '@hallmark/devstack';
import {
  createGrpcClient,
  createLogger,
  Encryptor,
  HallmarkError,
  newId,
  openDatabase,
  type Pool,
} from '@hallmark/kit';
import { closeTestDatabase, TEST_DATABASE_SERVER, uniqueDatabaseName } from '@hallmark/kit/testing';
import type { MintBatchResponse } from '@hallmark/proto/certificates/v1/certificates';
import type { Principal } from '@hallmark/proto/common/v1/common';
import { MessagingServiceClient } from '@hallmark/proto/notify/v1/messaging';
import { TemplatesServiceClient } from '@hallmark/proto/notify/v1/templates';
import { CertificateVoucherClaims } from '../src/certificate-vouchers/claim.js';
import { createCertificateVoucherHandlers } from '../src/certificate-vouchers/rpc.js';
import { CertificateVoucherStore } from '../src/certificate-vouchers/store.js';
import { anvilWallet } from '../src/chain/dev-accounts.js';
import { Relayer } from '../src/chain/relayer.js';
import { connectChain, type Chain } from '../src/chain/setup.js';
import { GiftNotifier } from '../src/gifts/notifier.js';
import { createGiftHandlers } from '../src/gifts/rpc.js';
import { GiftService } from '../src/gifts/service.js';
import { GiftStore } from '../src/gifts/store.js';
import { ClaimTokens } from '../src/gifts/tokens.js';
import { giftWorkflowIngress } from '../src/gifts/workflows/ingress.js';
import { createCertificatesHandlers } from '../src/rpc.js';
import { CertificatesStore } from '../src/store.js';
import { TransferService } from '../src/transfers/service.js';
import { withTransfers } from '../src/transfers/workers/passes.js';
import { WalletStore } from '../src/wallets/store.js';
import { createStolenHandlers } from '../src/stolen/rpc.js';
import { assertCertificateNotReportedStolen } from '../src/stolen-store.js';
import { transaction } from '@hallmark/kit';

const CALL = { requestId: 'req_test', deadlineMs: Infinity };
const log = createLogger('certificates-test', 'silent');
const anvilLog = join(tmpdir(), `hallmark-anvil-stolen-${process.pid}.log`);
const KEYS = Encryptor.generateKey();
const NOWHERE = '127.0.0.1:1'; // Restate and notify are not running in this test

let anvil: AnvilHandle;
let database: string;
let pool: Pool;
let chain: Chain;
let relayer: Relayer;
let api: ReturnType<typeof createCertificatesHandlers>;
let vouchers: ReturnType<typeof createCertificateVoucherHandlers>;
let gifts: ReturnType<typeof createGiftHandlers>;
let giftService: GiftService;
/** Records transfers without sending them (the driven one below sends). */
let idle: TransferService;
let stolen: ReturnType<typeof createStolenHandlers>;
let voucherStore: CertificateVoucherStore;
let claims: CertificateVoucherClaims;
const closers: Array<() => void> = [];

const issuer: Principal = {
  enterprise_id: newId('enterprise'),
  livemode: true,
  actor_id: newId('apiKey'),
  actor_type: 'api_key',
  scopes: [],
};
const recipient = (): Principal => ({
  enterprise_id: newId('enterprise'),
  livemode: true,
  actor_id: newId('user'),
  actor_type: 'user',
  scopes: ['admin.*'],
});

beforeAll(async () => {
  anvil = await startAnvil({ port: await freePort(), logFile: anvilLog });
  database = uniqueDatabaseName('certificates');
  pool = await openDatabase({
    serverUrl: TEST_DATABASE_SERVER,
    database,
    migrationsDirs: [path.join(import.meta.dirname, '..', 'migrations')],
    max: 12,
  });
  chain = await connectChain(
    {
      rpcUrl: anvil.rpcUrl,
      relayerKey: anvilWallet(0).privateKey,
      chainId: anvil.chainId,
      baseURI: 'https://h.test/m/',
    },
    pool,
    log,
  );
  const store = new CertificatesStore(pool, () => chain.contract.address);
  relayer = new Relayer({
    pool,
    provider: chain.provider,
    signer: chain.signer,
    contract: chain.contract,
    chainId: chain.chainId,
    confirmations: 1,
    store,
    log,
    receiptTimeoutMs: 20_000,
  });
  const wallets = new WalletStore(pool, KEYS);
  const chainOf = () => ({
    relayer,
    provider: chain.provider,
    signer: chain.signer,
    chainId: chain.chainId,
    confirmations: 1,
  });
  idle = new TransferService({
    pool,
    store,
    wallets,
    chain: chainOf,
    log,
    waitMs: 0,
    receiptTimeoutMs: 20_000,
  });
  const driven = withTransfers(relayer, idle);
  const transfers = new TransferService({
    pool,
    store,
    wallets,
    chain: chainOf,
    log,
    onRecorded: () => void driven.processOpen(),
    waitMs: 20_000,
    receiptTimeoutMs: 20_000,
  });
  api = createCertificatesHandlers({ store, provider: chain.provider, wallets, transfers, batchPollMs: 50 });
  stolen = createStolenHandlers({ pool, certificates: store, wallets, transfers });
  voucherStore = new CertificateVoucherStore(pool, {
    publicUrl: 'https://hallmark.test',
    encryptionKeys: KEYS,
  });
  vouchers = createCertificateVoucherHandlers({
    vouchers: voucherStore,
    certificates: store,
    claims: (claims = new CertificateVoucherClaims({ store: voucherStore, wallets, transfers })),
  });
  const messaging = createGrpcClient(MessagingServiceClient, NOWHERE);
  const templates = createGrpcClient(TemplatesServiceClient, NOWHERE);
  closers.push(
    () => messaging.close(),
    () => templates.close(),
  );
  const notifier = new GiftNotifier({ messaging: messaging.api, templates: templates.api });
  const giftStore = new GiftStore(pool, KEYS);
  giftService = new GiftService({
    gifts: giftStore,
    certificates: store,
    wallets,
    notifier,
    tokens: new ClaimTokens(KEYS),
    ingress: giftWorkflowIngress(`http://${NOWHERE}`),
    ttlHours: 168,
    publicUrl: 'https://hallmark.test',
    log,
  });
  gifts = createGiftHandlers(giftService);
}, 60_000);

afterAll(async () => {
  for (const c of closers) c();
  chain?.provider.destroy();
  await closeTestDatabase(pool, database);
  await anvil?.stop();
  rmSync(anvilLog, { force: true });
});

/** Certificates minted on chain to the issuer's holding account (or `holder_address`). */
async function minted(key: string, n = 1, holderAddress = ''): Promise<string[]> {
  const res: MintBatchResponse = await api.mintBatch(
    {
      principal: issuer,
      idempotency_key: key,
      holder_address: holderAddress,
      holder_account: holderAddress ? undefined : { kind: 'enterprise', id: '' },
      items: Array.from({ length: n }, (_, i) => ({ name: `${key} #${i + 1}` })),
    },
    CALL,
  );
  await relayer.processOpen();
  return res.certificates.map((c) => c.id);
}

/** A certificate held by `owner`'s custodial wallet (moved there by a confirmed transfer). */
async function ownedBy(owner: Principal, key: string): Promise<string> {
  const [cert] = await minted(key);
  const res = await api.transfer(
    {
      principal: issuer,
      certificate_id: cert!,
      idempotency_key: `${key}-to-owner`,
      to_user_id: owner.actor_id,
    },
    CALL,
  );
  expect(res.status).toBe('confirmed');
  return cert!;
}

const report = (principal: Principal, certificateId: string, kind = 'stolen', reason = 'Taken from a car') =>
  stolen.reportStolen({ principal, certificate_id: certificateId, kind, reason }, CALL);
const clear = (principal: Principal, certificateId: string, reason = 'Found again') =>
  stolen.clearStolen({ principal, certificate_id: certificateId, reason }, CALL);
const voucherFor = (certificateId: string) =>
  vouchers.createVouchers(
    {
      principal: issuer,
      idempotency_key: newId('request'),
      items: [{ certificate_id: certificateId, expiry_days: 30, metadata_json: '{}' }],
    },
    CALL,
  );
const giftOf = (certificateId: string) =>
  gifts.createGift(
    { principal: issuer, certificate_id: certificateId, recipient_email: 'bob@example.com' },
    CALL,
  );
const transferOf = (certificateId: string, principal = issuer) =>
  api.transfer(
    {
      principal,
      certificate_id: certificateId,
      idempotency_key: newId('request'),
      to_user_id: newId('user'),
    },
    CALL,
  );

async function refusal(p: Promise<unknown>): Promise<HallmarkError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof HallmarkError) return err;
    throw err;
  }
  throw new Error('expected a refusal');
}

const reportedStolen = expect.objectContaining({
  code: 'certificate_reported_stolen',
  httpStatus: 409,
  message: expect.stringMatching(/was reported (stolen|lost) on \d{4}-\d{2}-\d{2}/),
});

async function outbox(type: string, certificateId: string) {
  const { rows } = await pool.query<{ payload: { data: { object: Record<string, unknown> } } }>(
    `SELECT payload FROM outbox WHERE type = $1 AND payload->'data'->'object'->>'id' = $2 ORDER BY id`,
    [type, certificateId],
  );
  return rows.map((r) => r.payload.data.object);
}

const kinds = async (certificateId: string) =>
  (await api.getPublicCertificate({ certificate_id: certificateId }, CALL)).provenance.map((p) => p.kind);

describe('reporting a certificate stolen or lost', () => {
  it('the brand reports: stored with who, when and why; provenance and the public read carry it; certificate.reported_stolen in the outbox', async () => {
    const [cert] = await minted('rep-1');
    const res = await report(issuer, cert!, 'stolen', 'Shop window broken on 3 May');
    expect(res.report).toMatchObject({
      kind: 'stolen',
      reason: 'Shop window broken on 3 May',
      reported_by: { type: 'brand', id: issuer.actor_id },
    });
    expect(res.certificate!.stolen).toEqual({
      kind: 'stolen',
      reported_at: res.report!.reported_at,
      reported_by: 'brand',
    });
    const pub = await api.getPublicCertificate({ certificate_id: cert! }, CALL);
    expect(pub.stolen).toMatchObject({ kind: 'stolen', reported_by: 'brand' });
    expect(await kinds(cert!)).toContain('reported_stolen');
    const [event] = await outbox('certificate.reported_stolen', cert!);
    expect(event).toMatchObject({
      id: cert,
      stolenReport: { kind: 'stolen', reason: 'Shop window broken on 3 May', reportedBy: { type: 'brand' } },
    });
    // A second report while one is open: the same 409.
    expect(await refusal(report(issuer, cert!, 'lost'))).toEqual(reportedStolen);
  }, 60_000);

  it('the owner (a user session whose custodial wallet holds it) reports it lost; another user cannot', async () => {
    const owner = recipient();
    const cert = await ownedBy(owner, 'own-1');
    expect(await refusal(report(recipient(), cert))).toMatchObject({ code: 'resource_not_found' });
    const res = await report(owner, cert, 'lost', 'Left on a train');
    expect(res.report).toMatchObject({ kind: 'lost', reported_by: { type: 'owner', id: owner.actor_id } });
    expect(await kinds(cert)).toContain('reported_lost');
  }, 60_000);

  it('refuses a missing reason or an unknown kind before writing anything', async () => {
    const [cert] = await minted('rep-bad');
    expect(await refusal(report(issuer, cert!, 'stolen', '  '))).toMatchObject({
      code: 'parameter_missing',
      param: 'reason',
    });
    expect(await refusal(report(issuer, cert!, 'misplaced'))).toMatchObject({
      code: 'parameter_invalid',
      param: 'kind',
    });
    expect((await api.getPublicCertificate({ certificate_id: cert! }, CALL)).stolen).toBeUndefined();
  }, 60_000);
});

describe('while reported stolen every hand-over is refused', () => {
  it('Transfer, gift create, voucher create and the resale guard: 409 certificate_reported_stolen, nothing recorded', async () => {
    const [cert] = await minted('blk-1');
    await report(issuer, cert!);
    expect(await refusal(transferOf(cert!))).toEqual(reportedStolen);
    expect(await refusal(giftOf(cert!))).toEqual(
      expect.objectContaining({ code: 'certificate_reported_stolen', param: 'certificateId' }),
    );
    expect(await refusal(voucherFor(cert!))).toEqual(reportedStolen);
    expect(
      await refusal(
        transaction(pool, (tx) =>
          assertCertificateNotReportedStolen(tx, cert!, { doing: 'it cannot be resold' }),
        ),
      ),
    ).toEqual(
      expect.objectContaining({
        code: 'certificate_reported_stolen',
        message: expect.stringContaining('it cannot be resold'),
      }),
    );
    const { rows } = await pool.query(
      `SELECT (SELECT count(*) FROM certificate_transfers WHERE certificate_id = $1)::int AS transfers,
              (SELECT count(*) FROM gifts WHERE certificate_id = $1)::int AS gifts,
              (SELECT count(*) FROM certificate_vouchers WHERE certificate_id = $1)::int AS vouchers,
              (SELECT handover_kind FROM certificates WHERE id = $1) AS hold`,
      [cert],
    );
    expect(rows[0]).toEqual({ transfers: 0, gifts: 0, vouchers: 0, hold: null });
  }, 60_000);

  it('a voucher and a gift made before the report cannot be claimed while it is open; after clearing, both can proceed', async () => {
    const [a, b] = await minted('blk-2', 2);
    const [v] = (await voucherFor(a!)).vouchers;
    const { claim_token } = await giftOf(b!);
    await report(issuer, a!);
    await report(issuer, b!);
    expect(await refusal(vouchers.claimVoucher({ principal: recipient(), voucher_id: v!.id }, CALL))).toEqual(
      expect.objectContaining({ code: 'certificate_reported_stolen', param: 'voucher_id' }),
    );
    expect(await refusal(giftService.claim(recipient(), claim_token, 0))).toEqual(
      expect.objectContaining({ code: 'certificate_reported_stolen', param: 'token' }),
    );
    // Neither was consumed: the voucher is still claimable, the gift still pending.
    expect((await vouchers.getPublicVoucher({ voucher_id: v!.id }, CALL)).voucher!.status).toBe('available');
    expect((await giftService.view(claim_token)).gift.status).toBe('pending');
    await clear(issuer, a!);
    const claimed = await vouchers.claimVoucher({ principal: recipient(), voucher_id: v!.id }, CALL);
    expect(claimed).toMatchObject({ transfer_status: 'confirmed', voucher: { status: 'claimed' } });
  }, 90_000);
  it('a voucher claim recorded before the report, whose transfer had not started, is undone by the repair pass (claim_reverted), not retried for ever', async () => {
    const [cert] = await minted('blk-3');
    const [v] = (await voucherFor(cert!)).vouchers;
    const claimant = recipient();
    await voucherStore.claims.claim(
      v!.id,
      {
        userId: claimant.actor_id,
        enterpriseId: claimant.enterprise_id,
        email: null,
        toAddress: anvilWallet(9).address,
      },
      async () => true,
    );
    await report(issuer, cert!);
    // As if the process died between the claim and its transfer (the repair pass waits 10 s).
    await pool.query(
      "UPDATE certificate_vouchers SET claimed_at = now() - interval '1 minute' WHERE id = $1",
      [v!.id],
    );
    await claims.repairPass();
    expect((await vouchers.getPublicVoucher({ voucher_id: v!.id }, CALL)).voucher!.status).toBe('available');
    expect(await kinds(cert!)).toEqual(
      expect.arrayContaining(['claimed', 'reported_stolen', 'claim_reverted']),
    );
    const { rows } = await pool.query(
      'SELECT count(*)::int AS n FROM certificate_transfers WHERE certificate_id = $1',
      [cert],
    );
    expect(rows[0].n).toBe(0);
  }, 60_000);
});

describe('clearing follows the brand policy', () => {
  it('default `brand`: the owner who reported cannot clear (403), the brand can; certificate.recovered in the outbox and transfers work again', async () => {
    const owner = recipient();
    const cert = await ownedBy(owner, 'clr-1');
    await report(owner, cert);
    expect((await stolen.getStolenPolicy({ principal: issuer }, CALL)).cleared_by).toBe('brand');
    expect(await refusal(clear(owner, cert))).toMatchObject({
      code: 'insufficient_permissions',
      httpStatus: 403,
    });
    const res = await clear(issuer, cert, 'Owner found it at home');
    expect(res.report).toMatchObject({
      clear_reason: 'Owner found it at home',
      cleared_by: { type: 'brand' },
    });
    expect(res.certificate!.stolen).toBeUndefined();
    expect(await kinds(cert)).toEqual(expect.arrayContaining(['reported_stolen', 'stolen_cleared']));
    const [event] = await outbox('certificate.recovered', cert);
    expect(event).toMatchObject({ id: cert, stolenReport: { clearReason: 'Owner found it at home' } });
    // Cleared: the certificate moves again (issuer-held certificates; this one is the owner's).
    const [free] = await minted('clr-1b');
    await report(issuer, free!);
    await clear(issuer, free!);
    expect((await transferOf(free!)).status).toBe('confirmed');
  }, 90_000);

  it('`brand_or_reporter`: the owner who reported clears; a report by the brand stays the brand’s to clear', async () => {
    const brand: Principal = { ...issuer, enterprise_id: newId('enterprise'), actor_id: newId('apiKey') };
    await stolen.setStolenPolicy({ principal: brand, cleared_by: 'brand_or_reporter' }, CALL);
    expect((await stolen.getStolenPolicy({ principal: brand }, CALL)).cleared_by).toBe('brand_or_reporter');
    expect(
      await refusal(stolen.setStolenPolicy({ principal: brand, cleared_by: 'anyone' }, CALL)),
    ).toMatchObject({
      code: 'parameter_invalid',
    });
    // Certificates of `brand`: minted by it to its holding account, then moved to the owner.
    const owner = recipient();
    const res = await api.mintBatch(
      {
        principal: brand,
        idempotency_key: 'pol-1',
        holder_address: '',
        holder_account: { kind: 'enterprise', id: '' },
        items: [{ name: 'pol-1 a' }, { name: 'pol-1 b' }],
      },
      CALL,
    );
    await relayer.processOpen();
    const [a, b] = res.certificates.map((c) => c.id);
    for (const [i, id] of [a!, b!].entries()) {
      const t = await api.transfer(
        { principal: brand, certificate_id: id, idempotency_key: `pol-1-${i}`, to_user_id: owner.actor_id },
        CALL,
      );
      expect(t.status).toBe('confirmed');
    }
    await report(owner, a!);
    expect((await clear(owner, a!)).report!.cleared_by).toEqual({ type: 'owner', id: owner.actor_id });
    await report(brand, b!);
    expect(await refusal(clear(owner, b!))).toMatchObject({ code: 'insufficient_permissions' });
  }, 90_000);
});

describe('brand recovery', () => {
  it('moves the token from the owner’s custodial wallet to a new owner on anvil with its reason: `recovered` provenance, the report ended, events in the outbox', async () => {
    const thief = recipient();
    const cert = await ownedBy(thief, 'rec-1');
    await report(issuer, cert, 'stolen', 'Police report 42');
    const rightful = recipient();
    const res = await stolen.recoverCertificate(
      {
        principal: issuer,
        certificate_id: cert,
        idempotency_key: 'rec-1',
        to_user_id: rightful.actor_id,
        reason: 'Returned to the buyer of record (police report 42)',
      },
      CALL,
    );
    expect(res.status).toBe('confirmed');
    const tokenId = (await api.getPublicCertificate({ certificate_id: cert }, CALL)).token_id!;
    expect(await chain.contract.ownerOf(tokenId)).toBe(res.to_address);
    const pub = await api.getPublicCertificate({ certificate_id: cert }, CALL);
    expect(pub.stolen).toBeUndefined();
    expect(pub.holder_address).toBe(res.to_address);
    expect(pub.provenance.at(-1)).toMatchObject({ kind: 'recovered', to: res.to_address });
    const { reports } = await stolen.listStolenReports({ principal: issuer, certificate_id: cert }, CALL);
    expect(reports[0]).toMatchObject({
      clear_reason: 'Returned to the buyer of record (police report 42)',
      recovered_to: res.to_address,
    });
    expect(await outbox('certificate.recovered', cert)).toEqual([
      expect.objectContaining({
        holderAddress: res.to_address,
        stolenReport: expect.objectContaining({ recoveredTo: res.to_address }),
      }),
    ]);
    expect(await outbox('certificate.transferred', cert)).toHaveLength(2);
    // The same key again: the same recovery, nothing sent twice.
    const again = await stolen.recoverCertificate(
      {
        principal: issuer,
        certificate_id: cert,
        idempotency_key: 'rec-1',
        to_user_id: rightful.actor_id,
        reason: 'Returned to the buyer of record (police report 42)',
      },
      CALL,
    );
    expect(again).toMatchObject({ replayed: true, status: 'confirmed' });
  }, 90_000);

  it('refuses a self-custody holder plainly, and the owner may not recover', async () => {
    const [cert] = await minted('rec-2', 1, anvilWallet(7).address);
    expect(
      await refusal(
        stolen.recoverCertificate(
          {
            principal: issuer,
            certificate_id: cert!,
            idempotency_key: 'rec-2',
            to_address: anvilWallet(8).address,
            reason: 'x',
          },
          CALL,
        ),
      ),
    ).toMatchObject({ code: 'validation_failed', message: expect.stringContaining('self-custody wallet') });
    const owner = recipient();
    const owned = await ownedBy(owner, 'rec-3');
    expect(
      await refusal(
        stolen.recoverCertificate(
          {
            principal: owner,
            certificate_id: owned,
            idempotency_key: 'rec-3',
            to_address: anvilWallet(8).address,
            reason: 'mine',
          },
          CALL,
        ),
      ),
    ).toMatchObject({ code: 'insufficient_permissions' });
  }, 90_000);
});

describe('tenant isolation', () => {
  it('another enterprise’s key (or the other mode) cannot report, clear, list or recover: answered as an unknown certificate', async () => {
    const [cert] = await minted('iso-1');
    const other: Principal = { ...issuer, enterprise_id: newId('enterprise'), actor_id: newId('apiKey') };
    const testMode: Principal = { ...issuer, livemode: false };
    for (const p of [other, testMode]) {
      expect(await refusal(report(p, cert!))).toMatchObject({ code: 'resource_not_found' });
    }
    await report(issuer, cert!);
    for (const p of [other, testMode]) {
      expect(await refusal(clear(p, cert!))).toMatchObject({ code: 'resource_not_found' });
      expect(
        await refusal(stolen.listStolenReports({ principal: p, certificate_id: cert! }, CALL)),
      ).toMatchObject({
        code: 'resource_not_found',
      });
      expect(
        await refusal(
          stolen.recoverCertificate(
            {
              principal: p,
              certificate_id: cert!,
              idempotency_key: 'iso',
              to_address: anvilWallet(8).address,
              reason: 'x',
            },
            CALL,
          ),
        ),
      ).toMatchObject({ code: 'resource_not_found' });
    }
    // Another enterprise's policy is its own.
    await stolen.setStolenPolicy({ principal: other, cleared_by: 'brand_or_reporter' }, CALL);
    expect((await stolen.getStolenPolicy({ principal: issuer }, CALL)).cleared_by).toBe('brand');
    expect((await api.getPublicCertificate({ certificate_id: cert! }, CALL)).stolen).toBeDefined();
  }, 60_000);
});
