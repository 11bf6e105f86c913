// Resale, proof-of-ownership links and export (docs/resale.md) on a real PostgreSQL and a real
// anvil, the slices in-process: an owner (a user session proving an e-mail, whose custodial
// wallet holds the certificate) resells to a buyer with no wallet and the token moves on chain
// with provenance `resold`; the brand's approval policy (approve, refuse with a reason); one
// pending hand-over across gift and resale; ownership links valid, expired, revoked and after
// a transfer; export to the owner's wallet only with that wallet's EIP-712 signature; tenants
// apart. Restate and notify are not running here: the workflow's steps are called as it would
// call them, and the claim token is derived with the key ring as the e-mail would carry it.
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
import { Wallet } from 'ethers';
import { closeTestDatabase, TEST_DATABASE_SERVER, uniqueDatabaseName } from '@hallmark/kit/testing';
import type { MintBatchResponse } from '@hallmark/proto/certificates/v1/certificates';
import type { Principal } from '@hallmark/proto/common/v1/common';
import { MessagingServiceClient } from '@hallmark/proto/notify/v1/messaging';
import { TemplatesServiceClient } from '@hallmark/proto/notify/v1/templates';
import { anvilWallet } from '../src/chain/dev-accounts.js';
import { Relayer } from '../src/chain/relayer.js';
import { connectChain, type Chain } from '../src/chain/setup.js';
import { GiftNotifier } from '../src/gifts/notifier.js';
import { createGiftHandlers } from '../src/gifts/rpc.js';
import { GiftService } from '../src/gifts/service.js';
import { GiftStore } from '../src/gifts/store.js';
import { createResaleHandlers } from '../src/gifts/resale-rpc.js';
import { ResaleService } from '../src/gifts/resale-service.js';
import { ResaleStore } from '../src/gifts/resale-store.js';
import { createOwnershipHandlers } from '../src/ownership/rpc.js';
import { OwnershipService } from '../src/ownership/service.js';
import { OwnershipStore } from '../src/ownership/store.js';
import { ClaimTokens } from '../src/gifts/tokens.js';
import { giftWorkflowIngress } from '../src/gifts/workflows/ingress.js';
import { GiftSteps, NotYet } from '../src/gifts/workflows/steps.js';
import { createCertificatesHandlers } from '../src/rpc.js';
import { CertificatesStore } from '../src/store.js';
import { TransferService } from '../src/transfers/service.js';
import { withTransfers } from '../src/transfers/workers/passes.js';
import { WalletStore } from '../src/wallets/store.js';

const CALL = { requestId: 'req_test', deadlineMs: Infinity };
const log = createLogger('certificates-test', 'silent');
const anvilLog = join(tmpdir(), `hallmark-anvil-resale-${process.pid}.log`);
const KEYS = Encryptor.generateKey();
const NOWHERE = '127.0.0.1:1'; // Restate and notify are not running in this test

let anvil: AnvilHandle;
let database: string;
let pool: Pool;
let chain: Chain;
let relayer: Relayer;
let api: ReturnType<typeof createCertificatesHandlers>;
let gifts: ReturnType<typeof createGiftHandlers>;
let giftService: GiftService;
let steps: GiftSteps;
let giftStore: GiftStore;
let resale: ReturnType<typeof createResaleHandlers>;
let ownership: ReturnType<typeof createOwnershipHandlers>;
/** Records transfers without sending them (they stay pending until `drive`). */
let idle: TransferService;
let drive: () => Promise<number>;
const closers: Array<() => void> = [];

const issuer: Principal = {
  enterprise_id: newId('enterprise'),
  livemode: true,
  actor_id: newId('apiKey'),
  actor_type: 'api_key',
  scopes: [],
};
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
  drive = () => driven.processOpen();
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
  const messaging = createGrpcClient(MessagingServiceClient, NOWHERE);
  const templates = createGrpcClient(TemplatesServiceClient, NOWHERE);
  closers.push(
    () => messaging.close(),
    () => templates.close(),
  );
  const notifier = new GiftNotifier({ messaging: messaging.api, templates: templates.api });
  const giftStore0 = new GiftStore(pool, KEYS);
  giftService = new GiftService({
    gifts: giftStore0,
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
  giftStore = giftStore0;
  const ingress = giftWorkflowIngress(`http://${NOWHERE}`);
  resale = createResaleHandlers(
    new ResaleService({
      gifts: giftService,
      giftStore: giftStore0,
      resales: new ResaleStore(pool),
      ingress,
      log,
    }),
    store,
  );
  const ownershipService = new OwnershipService({
    links: new OwnershipStore(pool),
    certificates: store,
    wallets,
    transfers,
    chain: () => ({
      chainId: chain.chainId,
      contractAddress: chain.contract.address,
      nonceOf: (tokenId) => chain.contract.nonces(tokenId),
    }),
  });
  ownership = createOwnershipHandlers(ownershipService);
  steps = new GiftSteps({
    gifts: giftStore0,
    service: giftService,
    transfers,
    certificates: store,
    notifier,
    maxAttempts: 3,
    log,
  });
}, 60_000);

afterAll(async () => {
  for (const c of closers) c();
  chain?.provider.destroy();
  await closeTestDatabase(pool, database);
  await anvil?.stop();
  rmSync(anvilLog, { force: true });
});

const ownerOf = (enterpriseId = issuer.enterprise_id): Principal => ({
  enterprise_id: enterpriseId,
  livemode: true,
  actor_id: newId('user'),
  actor_type: 'user',
  scopes: ['admin.*'],
});
const SELLER_EMAIL = 'owner@example.com';
const tokens = new ClaimTokens(KEYS);

/** A certificate minted to the issuer, then moved to `owner`'s custodial wallet (a first sale). */
async function ownedBy(
  owner: Principal,
  key: string,
): Promise<{ id: string; tokenId: bigint; wallet: string }> {
  const res: MintBatchResponse = await api.mintBatch(
    {
      principal: issuer,
      idempotency_key: key,
      holder_address: '',
      holder_account: { kind: 'enterprise', id: '' },
      items: [{ name: `${key} watch`, image_url: `https://img.hallmark.test/${key}.png` }],
    },
    CALL,
  );
  await relayer.processOpen();
  const id = res.certificates[0]!.id;
  const moved = await api.transfer(
    { principal: issuer, certificate_id: id, idempotency_key: `sale:${key}`, to_user_id: owner.actor_id },
    CALL,
  );
  expect(moved.status).toBe('confirmed');
  const cert = await api.getCertificate({ principal: issuer, certificate_id: id }, CALL);
  return { id, tokenId: BigInt(cert.token_id!), wallet: moved.to_address };
}

const startResale = (owner: Principal, certificateId: string, email = SELLER_EMAIL) =>
  resale.createResale(
    {
      principal: owner,
      certificate_id: certificateId,
      buyer_email: 'buyer@example.com',
      seller_email: email,
    },
    CALL,
  );

/** The buyer's claim link token, as the e-mail carries it. */
async function linkOf(resaleId: string): Promise<string> {
  const g = await giftStore.find(resaleId);
  return tokens.recover(resaleId, g!.tokenHash)!;
}

/** The buyer claims and the workflow's transfer step runs to the end. */
async function buyerClaims(resaleId: string, buyer: Principal) {
  await giftService.claim(buyer, await linkOf(resaleId), 0);
  await expect(steps.transfer(resaleId)).rejects.toBeInstanceOf(NotYet);
  await drive();
  await expect(steps.transfer(resaleId)).resolves.toBe('claimed');
}

async function refusal(p: Promise<unknown>): Promise<HallmarkError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof HallmarkError) return err;
    throw err;
  }
  throw new Error('expected a refusal');
}

const eventsOf = async (resaleId: string) =>
  (
    await pool.query<{ type: string; enterprise_id: string }>(
      `SELECT type, payload->>'enterprise_id' AS enterprise_id FROM outbox
        WHERE type LIKE 'certificate.resale_%' AND payload->'data'->'object'->>'id' = $1 ORDER BY seq`,
      [resaleId],
    )
  ).rows;

const holdOf = async (certificateId: string) =>
  (await pool.query('SELECT handover_kind, handover_id FROM certificates WHERE id = $1', [certificateId]))
    .rows[0];

const brandKey = issuer;
const setPolicy = (approval_required: boolean, principal = brandKey) =>
  resale.setResalePolicy({ principal, approval_required }, CALL);

describe('resale to a buyer with no wallet', () => {
  it('the owner resells; the buyer claims; the token moves on chain to the buyer’s new custodial wallet, provenance resold, started and completed events', async () => {
    const owner = ownerOf();
    const cert = await ownedBy(owner, 'rs-1');
    const r = await startResale(owner, cert.id);
    expect(r).toMatchObject({
      status: 'pending',
      seller_address: cert.wallet,
      certificate_id: cert.id,
      token_id: Number(cert.tokenId),
    });
    expect(r.approval).toBeUndefined();
    const buyer = ownerOf();
    await buyerClaims(r.id, buyer);
    const buyerWallet = await api.ensureWallet(
      { principal: buyer, owner: { kind: 'user', id: buyer.actor_id } },
      CALL,
    );
    expect(await chain.contract.ownerOf(cert.tokenId)).toBe(buyerWallet.address);
    const read = await api.getCertificate({ principal: issuer, certificate_id: cert.id }, CALL);
    expect(read.holder_address).toBe(buyerWallet.address);
    expect(read.provenance.map((p) => p.kind)).toEqual(
      expect.arrayContaining(['minted', 'transferred', 'resold']),
    );
    const resold = read.provenance.find((p) => p.kind === 'resold')!;
    expect(resold).toMatchObject({ from: cert.wallet, to: buyerWallet.address });
    expect((await resale.getResale({ principal: owner, resale_id: r.id }, CALL)).status).toBe('claimed');
    expect(await eventsOf(r.id)).toEqual([
      { type: 'certificate.resale_started', enterprise_id: issuer.enterprise_id },
      { type: 'certificate.resale_completed', enterprise_id: issuer.enterprise_id },
    ]);
    // The buyer now owns it and can resell in turn.
    expect((await startResale(buyer, cert.id, 'buyer@example.com')).status).toBe('pending');
  }, 90_000);

  it('is refused to anyone but the owner signed in by e-mail: an API key, a session proving no e-mail, the enterprise’s holding wallet, another user, another enterprise', async () => {
    const owner = ownerOf();
    const cert = await ownedBy(owner, 'rs-2');
    expect(await refusal(startResale(issuer, cert.id))).toMatchObject({ code: 'insufficient_permissions' });
    expect(await refusal(startResale(owner, cert.id, ''))).toMatchObject({
      code: 'insufficient_permissions',
    });
    expect(await refusal(startResale(ownerOf(), cert.id))).toMatchObject({ code: 'validation_failed' });
    expect(await refusal(startResale(ownerOf(newId('enterprise')), cert.id))).toMatchObject({
      code: 'resource_not_found',
    });
    // A certificate still in the brand's holding wallet is the brand's, not an owner's to resell.
    const held = await api.mintBatch(
      {
        principal: issuer,
        idempotency_key: 'rs-2-held',
        holder_address: '',
        holder_account: { kind: 'enterprise', id: '' },
        items: [{ name: 'held' }],
      },
      CALL,
    );
    await relayer.processOpen();
    const admin = { ...ownerOf(), actor_type: 'user' };
    expect(await refusal(startResale(admin, held.certificates[0]!.id))).toMatchObject({
      code: 'validation_failed',
    });
    expect(
      await refusal(
        resale.createResale(
          { principal: owner, certificate_id: cert.id, buyer_email: 'nope', seller_email: SELLER_EMAIL },
          CALL,
        ),
      ),
    ).toMatchObject({ code: 'parameter_invalid', param: 'buyerEmail' });
    // Nothing was created: the certificate has no hand-over.
    expect(await holdOf(cert.id)).toEqual({ handover_kind: null, handover_id: null });
  }, 90_000);
});

describe('the transfer guard', () => {
  it('a certificate reported stolen cannot be resold, exported or linked to a new buyer: 409 certificate_reported_stolen, nothing recorded', async () => {
    const owner = ownerOf();
    const cert = await ownedBy(owner, 'st-1');
    await pool.query('UPDATE certificates SET stolen = $2 WHERE id = $1', [
      cert.id,
      {
        reportId: 'rep_1',
        kind: 'stolen',
        reportedAt: '2026-11-29T00:00:00.000Z',
        reportedBy: { type: 'brand', id: 'k' },
      },
    ]);
    try {
      expect(await refusal(startResale(owner, cert.id))).toMatchObject({
        code: 'certificate_reported_stolen',
        param: 'certificateId',
        message: expect.stringContaining('it cannot be resold'),
      });
      const to = Wallet.createRandom().address;
      expect(
        await refusal(
          ownership.prepareExport({ principal: owner, certificate_id: cert.id, to_address: to }, CALL),
        ),
      ).toMatchObject({ code: 'certificate_reported_stolen' });
      expect(await holdOf(cert.id)).toEqual({ handover_kind: null, handover_id: null });
      const { rows } = await pool.query('SELECT count(*)::int AS n FROM gifts WHERE certificate_id = $1', [
        cert.id,
      ]);
      expect(rows[0].n).toBe(0);
    } finally {
      await pool.query('UPDATE certificates SET stolen = NULL WHERE id = $1', [cert.id]);
    }
  }, 60_000);
});

describe('the brand’s approval', () => {
  it('with approval required the buyer gets nothing and cannot claim until the brand approves by API key; then the resale completes', async () => {
    await setPolicy(true);
    try {
      const owner = ownerOf();
      const cert = await ownedBy(owner, 'ap-1');
      const r = await startResale(owner, cert.id);
      expect(r).toMatchObject({ status: 'awaiting_approval', approval: 'requested' });
      expect((await eventsOf(r.id)).map((e) => e.type)).toEqual([
        'certificate.resale_started',
        'certificate.resale_approval_requested',
      ]);
      // The workflow's first step sends nothing while the brand has not decided.
      await expect(steps.notifyCreated(r.id)).resolves.toEqual([]);
      expect(await refusal(giftService.claim(ownerOf(), await linkOf(r.id), 0))).toMatchObject({
        code: 'resource_not_found',
      });
      // Not the seller (a user session), not another enterprise's key.
      const self = resale.decideResale({ principal: owner, resale_id: r.id, approve: true }, CALL);
      expect(await refusal(self)).toMatchObject({ code: 'insufficient_permissions' });
      const other = { ...issuer, enterprise_id: newId('enterprise') };
      expect(
        await refusal(resale.decideResale({ principal: other, resale_id: r.id, approve: true }, CALL)),
      ).toMatchObject({ code: 'resource_not_found' });

      const approved = await resale.decideResale(
        { principal: brandKey, resale_id: r.id, approve: true, reason: 'Serial checked' },
        CALL,
      );
      expect(approved).toMatchObject({
        status: 'pending',
        approval: 'approved',
        approval_reason: 'Serial checked',
      });
      const buyer = ownerOf();
      await buyerClaims(r.id, buyer);
      expect((await eventsOf(r.id)).map((e) => e.type)).toEqual([
        'certificate.resale_started',
        'certificate.resale_approval_requested',
        'certificate.resale_approved',
        'certificate.resale_completed',
      ]);
      const read = await api.getCertificate({ principal: issuer, certificate_id: cert.id }, CALL);
      expect(read.provenance.at(-1)!.kind).toBe('resold');
    } finally {
      await setPolicy(false);
    }
  }, 90_000);

  it('a refusal needs a reason, ends the resale (revoked, reason kept) and the owner keeps the certificate and may start again', async () => {
    await setPolicy(true);
    try {
      const owner = ownerOf();
      const cert = await ownedBy(owner, 'ap-2');
      const r = await startResale(owner, cert.id);
      expect(
        await refusal(resale.decideResale({ principal: brandKey, resale_id: r.id, approve: false }, CALL)),
      ).toMatchObject({ code: 'parameter_missing', param: 'reason' });
      const refused = await resale.decideResale(
        { principal: brandKey, resale_id: r.id, approve: false, reason: 'Reported at a repair centre' },
        CALL,
      );
      expect(refused).toMatchObject({
        status: 'revoked',
        approval: 'refused',
        approval_reason: 'Reported at a repair centre',
      });
      expect(await holdOf(cert.id)).toEqual({ handover_kind: null, handover_id: null });
      expect(await chain.contract.ownerOf(cert.tokenId)).toBe(cert.wallet);
      expect(await refusal(giftService.claim(ownerOf(), await linkOf(r.id), 0))).toMatchObject({
        code: 'resource_not_found',
      });
      // Decided once: a second decision is refused.
      expect(
        await refusal(resale.decideResale({ principal: brandKey, resale_id: r.id, approve: true }, CALL)),
      ).toMatchObject({ code: 'validation_failed' });
      expect((await eventsOf(r.id)).map((e) => e.type)).toEqual([
        'certificate.resale_started',
        'certificate.resale_approval_requested',
        'certificate.resale_refused',
      ]);
      expect((await startResale(owner, cert.id)).status).toBe('awaiting_approval');
    } finally {
      await setPolicy(false);
    }
  }, 90_000);

  it('only the brand’s API key sets the policy; it is per enterprise', async () => {
    expect(await refusal(setPolicy(true, ownerOf()))).toMatchObject({ code: 'insufficient_permissions' });
    const otherBrand = { ...issuer, enterprise_id: newId('enterprise') };
    await setPolicy(true, otherBrand);
    expect((await resale.getResalePolicy({ principal: otherBrand }, CALL)).approval_required).toBe(true);
    expect((await resale.getResalePolicy({ principal: issuer }, CALL)).approval_required).toBe(false);
  }, 30_000);
});

describe('one pending hand-over across gift and resale', () => {
  it('a pending resale refuses a gift and a transfer of its certificate; a pending gift refuses a resale; cancelling frees it', async () => {
    const owner = ownerOf();
    const cert = await ownedBy(owner, 'ho-1');
    const r = await startResale(owner, cert.id);
    const gift = gifts.createGift(
      { principal: owner, certificate_id: cert.id, recipient_email: 'x@example.com' },
      CALL,
    );
    expect(await refusal(gift)).toMatchObject({ code: 'resource_locked', httpStatus: 409 });
    const transfer = api.transfer(
      { principal: issuer, certificate_id: cert.id, idempotency_key: 'ho-1-t', to_user_id: newId('user') },
      CALL,
    );
    expect(await refusal(transfer)).toMatchObject({ code: 'resource_locked' });
    const cancelled = await resale.cancelResale({ principal: owner, resale_id: r.id }, CALL);
    expect(cancelled.status).toBe('revoked');
    expect((await eventsOf(r.id)).map((e) => e.type)).toContain('certificate.resale_cancelled');

    const g = await gifts.createGift(
      { principal: owner, certificate_id: cert.id, recipient_email: 'x@example.com' },
      CALL,
    );
    expect(await refusal(startResale(owner, cert.id))).toMatchObject({
      code: 'resource_locked',
      message: expect.stringContaining(`a pending gift (${g.gift!.id})`),
    });
  }, 90_000);

  it('a resale is not readable or cancellable by another enterprise, and a gift is not a resale', async () => {
    const owner = ownerOf();
    const cert = await ownedBy(owner, 'ho-2');
    const r = await startResale(owner, cert.id);
    const stranger = ownerOf(newId('enterprise'));
    expect(await refusal(resale.getResale({ principal: stranger, resale_id: r.id }, CALL))).toMatchObject({
      code: 'resource_not_found',
    });
    expect(await refusal(resale.cancelResale({ principal: stranger, resale_id: r.id }, CALL))).toMatchObject({
      code: 'resource_not_found',
    });
    await resale.cancelResale({ principal: owner, resale_id: r.id }, CALL);
    const g = await gifts.createGift(
      { principal: owner, certificate_id: cert.id, recipient_email: 'x@example.com' },
      CALL,
    );
    expect(await refusal(resale.getResale({ principal: owner, resale_id: g.gift!.id }, CALL))).toMatchObject({
      code: 'resource_not_found',
    });
  }, 90_000);
});

describe('proof-of-ownership links', () => {
  it('says owned while the owner holds it, transferred after it moved, and nothing once revoked or expired; the token is stored only hashed', async () => {
    const owner = ownerOf();
    const cert = await ownedBy(owner, 'pl-1');
    const { link, token } = await ownership.createOwnershipLink(
      { principal: owner, certificate_id: cert.id, ttl_hours: 0 },
      CALL,
    );
    const hours = (Date.parse(link!.expires_at) - Date.parse(link!.created_at)) / 3_600_000;
    expect(hours).toBeCloseTo(72, 1);
    expect(await ownership.getOwnershipProof({ token }, CALL)).toMatchObject({
      status: 'owned',
      certificate_id: cert.id,
      token_id: Number(cert.tokenId),
      holder_address: cert.wallet,
    });
    const stored = await pool.query('SELECT token_hash FROM ownership_links WHERE id = $1', [link!.id]);
    expect(stored.rows[0].token_hash).not.toContain(token);
    expect(JSON.stringify(stored.rows)).not.toContain(token);

    // Expired (the clock moved past it).
    const second = await ownership.createOwnershipLink(
      { principal: owner, certificate_id: cert.id, ttl_hours: 1 },
      CALL,
    );
    await pool.query("UPDATE ownership_links SET expires_at = now() - interval '1 second' WHERE id = $1", [
      second.link!.id,
    ]);
    const expired = await ownership.getOwnershipProof({ token: second.token }, CALL);
    expect(expired).toMatchObject({ status: 'expired' });
    expect(expired.certificate_id).toBeUndefined();

    // Revoked by its owner (idempotent); another user cannot revoke it.
    const third = await ownership.createOwnershipLink(
      { principal: owner, certificate_id: cert.id, ttl_hours: 24 },
      CALL,
    );
    expect(
      await refusal(ownership.revokeOwnershipLink({ principal: ownerOf(), link_id: third.link!.id }, CALL)),
    ).toMatchObject({ code: 'resource_not_found' });
    await ownership.revokeOwnershipLink({ principal: owner, link_id: third.link!.id }, CALL);
    await ownership.revokeOwnershipLink({ principal: owner, link_id: third.link!.id }, CALL);
    expect((await ownership.getOwnershipProof({ token: third.token }, CALL)).status).toBe('revoked');

    // Sold on: the first link now says the certificate left its holder.
    const r = await startResale(owner, cert.id);
    await buyerClaims(r.id, ownerOf());
    const after = await ownership.getOwnershipProof({ token }, CALL);
    expect(after).toMatchObject({ status: 'transferred', certificate_id: cert.id });
    expect(after.holder_address).toBeUndefined();

    expect(await refusal(ownership.getOwnershipProof({ token: 'x'.repeat(43) }, CALL))).toMatchObject({
      code: 'resource_not_found',
    });
  }, 90_000);

  it('only the owner makes one, for at most 30 days', async () => {
    const owner = ownerOf();
    const cert = await ownedBy(owner, 'pl-2');
    const make = (principal: Principal, ttl_hours: number) =>
      ownership.createOwnershipLink({ principal, certificate_id: cert.id, ttl_hours }, CALL);
    expect(await refusal(make(owner, 721))).toMatchObject({ code: 'parameter_invalid', param: 'ttlHours' });
    expect(await refusal(make(owner, -1))).toMatchObject({ code: 'parameter_invalid' });
    expect(await refusal(make(ownerOf(), 24))).toMatchObject({ code: 'validation_failed' });
    expect(await refusal(make(issuer, 24))).toMatchObject({ code: 'insufficient_permissions' });
    expect(await refusal(make(ownerOf(newId('enterprise')), 24))).toMatchObject({
      code: 'resource_not_found',
    });
    expect((await make(owner, 720)).token).toMatch(/^[A-Za-z0-9_-]{43}$/);
  }, 60_000);
});

describe('export to the owner’s own wallet and import back', () => {
  it('refuses a signature by another wallet, an expired one and one for another destination; the right one moves the token there on chain; the outside wallet’s permit brings it back', async () => {
    const owner = ownerOf();
    const cert = await ownedBy(owner, 'ex-1');
    const mine = Wallet.createRandom();
    const typed = JSON.parse(
      (
        await ownership.prepareExport(
          { principal: owner, certificate_id: cert.id, to_address: mine.address },
          CALL,
        )
      ).typed_data_json,
    );
    expect(typed.primaryType).toBe('ExportCertificate');
    const { EIP712Domain: _, ...types } = typed.types;
    const sign = (w: { signTypedData: Wallet['signTypedData'] }, message = typed.message) =>
      w.signTypedData(typed.domain, types, message);
    const exportWith = (signature: string, to = mine.address, deadline = Number(typed.message.deadline)) =>
      ownership.exportCertificate(
        { principal: owner, certificate_id: cert.id, to_address: to, deadline, signature },
        CALL,
      );

    expect(await refusal(exportWith(await sign(Wallet.createRandom())))).toMatchObject({
      code: 'validation_failed',
      param: 'signature',
    });
    const other = Wallet.createRandom();
    expect(await refusal(exportWith(await sign(mine), other.address))).toMatchObject({ param: 'signature' });
    const past = Math.floor(Date.now() / 1000) - 10;
    expect(
      await refusal(
        exportWith(await sign(mine, { ...typed.message, deadline: String(past) }), mine.address, past),
      ),
    ).toMatchObject({ param: 'signature' });
    expect(await refusal(exportWith('0x1234'))).toMatchObject({ param: 'signature' });
    // Another user cannot export the owner's certificate, even with a valid signature.
    const stranger = ownership.exportCertificate(
      {
        principal: ownerOf(),
        certificate_id: cert.id,
        to_address: mine.address,
        deadline: Number(typed.message.deadline),
        signature: await sign(mine),
      },
      CALL,
    );
    expect(await refusal(stranger)).toMatchObject({ code: 'validation_failed', param: 'certificateId' });
    expect(await chain.contract.ownerOf(cert.tokenId)).toBe(cert.wallet);

    const done = await exportWith(await sign(mine));
    expect(done).toMatchObject({ status: 'confirmed', to_address: mine.address, replayed: false });
    expect(await chain.contract.ownerOf(cert.tokenId)).toBe(mine.address);
    const read = await api.getCertificate({ principal: issuer, certificate_id: cert.id }, CALL);
    expect(read.holder_address).toBe(mine.address);
    // Out of custody: no resale or ownership link by the former custodial owner.
    expect(await refusal(startResale(owner, cert.id))).toMatchObject({ code: 'sender_credential_missing' });

    // Import back: the outside wallet signs the contract's TransferPermit to the owner's custodial wallet.
    const permit = JSON.parse(
      (await ownership.prepareImport({ principal: owner, certificate_id: cert.id }, CALL)).typed_data_json,
    );
    expect(permit).toMatchObject({ primaryType: 'TransferPermit', message: { to: cert.wallet } });
    const { EIP712Domain: __, ...permitTypes } = permit.types;
    const importWith = (signature: string) =>
      ownership.importCertificate(
        { principal: owner, certificate_id: cert.id, deadline: Number(permit.message.deadline), signature },
        CALL,
      );
    const forged = await Wallet.createRandom().signTypedData(permit.domain, permitTypes, permit.message);
    expect(await refusal(importWith(forged))).toMatchObject({
      code: 'validation_failed',
      param: 'signature',
    });
    expect(await chain.contract.ownerOf(cert.tokenId)).toBe(mine.address);
    const back = await importWith(await mine.signTypedData(permit.domain, permitTypes, permit.message));
    expect(back).toMatchObject({ status: 'confirmed', to_address: cert.wallet, replayed: false });
    expect(await chain.contract.ownerOf(cert.tokenId)).toBe(cert.wallet);
    // In custody again: the owner can resell; an import of a certificate in custody is refused.
    expect(
      await refusal(ownership.prepareImport({ principal: owner, certificate_id: cert.id }, CALL)),
    ).toMatchObject({ code: 'validation_failed' });
    expect((await startResale(owner, cert.id)).status).toBe('pending');
  }, 90_000);
});
