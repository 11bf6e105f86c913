// Hand-over exclusivity (docs/security.md › Hand-over exclusivity) on a real PostgreSQL and a
// real anvil, the slices in-process: a certificate has at most one pending hand-over — a
// certificate voucher, a gift or a transfer — at a time; a second is refused 409
// `resource_locked` naming the one pending; the hold ends when that hand-over is claimed,
// revoked, voided, expires, or its transfer completes or fails; and the public pages of a
// voucher or gift that cannot be claimed say so. Restate is not running here (a gift's
// workflow start is retried later by its starter); the steps the workflow runs are called
// as it would call them.
import { copyFileSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
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
import { Relayer } from '../src/chain/relayer.js';
import type { Chain } from '../src/chain/setup.js';
import { connectTestChain } from './test-chain.js';
import { GiftNotifier } from '../src/gifts/notifier.js';
import { createGiftHandlers } from '../src/gifts/rpc.js';
import { GiftService } from '../src/gifts/service.js';
import { GiftStore } from '../src/gifts/store.js';
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
const anvilLog = join(tmpdir(), `hallmark-anvil-handover-${process.pid}.log`);
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
let steps: GiftSteps;
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
const scope = { enterpriseId: issuer.enterprise_id, livemode: true, actorId: issuer.actor_id };
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
  chain = await connectTestChain(anvil, pool, log);
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
  const voucherStore = new CertificateVoucherStore(pool, {
    publicUrl: 'https://hallmark.test',
    encryptionKeys: KEYS,
  });
  vouchers = createCertificateVoucherHandlers({
    vouchers: voucherStore,
    certificates: store,
    claims: new CertificateVoucherClaims({ store: voucherStore, wallets, transfers }),
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
  steps = new GiftSteps({
    gifts: giftStore,
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

/** Certificates minted on chain to the issuer's holding account. */
async function minted(key: string, n = 1): Promise<string[]> {
  const res: MintBatchResponse = await api.mintBatch(
    {
      principal: issuer,
      idempotency_key: key,
      holder_address: '',
      holder_account: { kind: 'enterprise', id: '' },
      items: Array.from({ length: n }, (_, i) => ({
        name: `${key} #${i + 1}`,
        image_url: `https://img.hallmark.test/${key}/${i}.png`,
      })),
    },
    CALL,
  );
  await relayer.processOpen();
  return res.certificates.map((c) => c.id);
}

const voucherFor = (certificateId: string, key = newId('request'), days = 30) =>
  vouchers.createVouchers(
    {
      principal: issuer,
      idempotency_key: key,
      items: [{ certificate_id: certificateId, expiry_days: days, metadata_json: '{"sku":"W-1"}' }],
    },
    CALL,
  );
const giftOf = (certificateId: string, email = 'bob@example.com') =>
  gifts.createGift({ principal: issuer, certificate_id: certificateId, recipient_email: email }, CALL);
const transferOf = (certificateId: string, key = newId('request')) =>
  idle.request(scope, { certificateId, idempotencyKey: key, toUserId: newId('user') });

async function refusal(p: Promise<unknown>): Promise<HallmarkError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof HallmarkError) return err;
    throw err;
  }
  throw new Error('expected a refusal');
}

/** The refusal of a second hand-over: 409, naming the pending one's kind (and id to the issuer). */
const lockedBy = (kind: string, id?: string) =>
  expect.objectContaining({
    code: 'resource_locked',
    httpStatus: 409,
    message: expect.stringContaining(`a pending ${kind}${id ? ` (${id})` : ''}`),
  });

const holdOf = async (certificateId: string) =>
  (await pool.query('SELECT handover_kind, handover_id FROM certificates WHERE id = $1', [certificateId]))
    .rows[0];

describe('one pending hand-over per certificate', () => {
  it('an unclaimed voucher refuses a gift of its certificate (409 naming the voucher), and stays claimable', async () => {
    const [cert] = await minted('vg-1');
    const [v] = (await voucherFor(cert!)).vouchers;
    expect(await refusal(giftOf(cert!))).toEqual(lockedBy('certificate voucher', v!.id));
    expect(await holdOf(cert!)).toEqual({ handover_kind: 'voucher', handover_id: v!.id });
    const page = await vouchers.getPublicVoucher({ voucher_id: v!.id }, CALL);
    expect(page.voucher!.status).toBe('available');
    const claimed = await vouchers.claimVoucher({ principal: recipient(), voucher_id: v!.id }, CALL);
    expect(claimed).toMatchObject({ transfer_status: 'confirmed', voucher: { status: 'claimed' } });
    // The claim's confirmed transfer ended the voucher's hold with the move.
    expect(await holdOf(cert!)).toEqual({ handover_kind: null, handover_id: null });
  }, 60_000);

  it('a pending gift refuses a voucher for its certificate (409 naming the gift); once revoked, the voucher is created', async () => {
    const [cert] = await minted('gv-1');
    const { gift } = await giftOf(cert!);
    expect(await refusal(voucherFor(cert!))).toEqual(lockedBy('gift', gift!.id));
    await gifts.revokeGift({ principal: issuer, transfer_id: gift!.id }, CALL);
    const [v] = (await voucherFor(cert!)).vouchers;
    expect(v!.status).toBe('available');
  }, 60_000);

  it('a pending transfer refuses a voucher and a gift; a pending voucher or gift refuses a transfer', async () => {
    const [a, b, c] = await minted('tx-1', 3);
    const { row } = await transferOf(a!);
    expect(await refusal(voucherFor(a!))).toEqual(lockedBy('transfer', row.id));
    expect(await refusal(giftOf(a!))).toEqual(lockedBy('transfer', row.id));

    const [v] = (await voucherFor(b!)).vouchers;
    expect(await refusal(transferOf(b!))).toEqual(lockedBy('certificate voucher', v!.id));
    const { gift } = await giftOf(c!);
    expect(await refusal(transferOf(c!))).toEqual(lockedBy('gift', gift!.id));

    // The transfer confirmed: the certificate moved and its hold ended with it.
    await drive();
    expect((await idle.byId(row.id)).status).toBe('confirmed');
    expect(await holdOf(a!)).toEqual({ handover_kind: null, handover_id: null });
  }, 60_000);

  it('parallel creates of vouchers, gifts and transfers of one certificate: exactly one wins, every other is 409', async () => {
    const [cert] = await minted('race-1');
    const attempts = [
      ...Array.from({ length: 3 }, () => voucherFor(cert!)),
      ...Array.from({ length: 3 }, (_, i) => giftOf(cert!, `r${i}@example.com`)),
      ...Array.from({ length: 3 }, () => transferOf(cert!)),
    ];
    const results = await Promise.allSettled(attempts);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    for (const r of results.filter((x) => x.status === 'rejected')) {
      // 409 either way: the hold, or (a second voucher of a certificate) its one-voucher rule.
      const err = (r as PromiseRejectedResult).reason as HallmarkError;
      expect(err.httpStatus).toBe(409);
      expect(['resource_locked', 'resource_already_exists']).toContain(err.code);
    }
    const hold = await holdOf(cert!);
    expect(['voucher', 'gift', 'transfer']).toContain(hold.handover_kind);
    await drive();
  }, 60_000);

  it('a voided voucher frees its certificate, and so does an expired one: a gift is then created', async () => {
    const [a, b] = await minted('free-1', 2);
    const [va] = (await voucherFor(a!)).vouchers;
    await vouchers.voidVouchers({ principal: issuer, voucher_ids: [va!.id], reason: 'cancelled' }, CALL);
    expect((await giftOf(a!)).gift!.status).toBe('pending');

    const [vb] = (await voucherFor(b!)).vouchers;
    expect(await refusal(giftOf(b!))).toEqual(lockedBy('certificate voucher', vb!.id));
    // Expired: nothing sweeps a voucher, its hold lapses at its expiry.
    await pool.query(
      "UPDATE certificate_vouchers SET expires_at = now() - interval '1 second' WHERE id = $1",
      [vb!.id],
    );
    await pool.query("UPDATE certificates SET handover_until = now() - interval '1 second' WHERE id = $1", [
      b,
    ]);
    expect((await giftOf(b!)).gift!.status).toBe('pending');
    const page = await vouchers.getPublicVoucher({ voucher_id: vb!.id }, CALL);
    expect(page.voucher!.status).toBe('expired');
  }, 60_000);

  it('a claimed gift frees its certificate for the next hand-over (by its new holder)', async () => {
    const [cert] = await minted('gc-1');
    const { claim_token } = await giftOf(cert!);
    const bob = recipient();
    await giftService.claim(bob, claim_token, 0);
    await expect(steps.transfer((await giftService.view(claim_token)).gift.id)).rejects.toBeInstanceOf(
      NotYet,
    );
    await drive();
    const id = (await giftService.view(claim_token)).gift.id;
    await expect(steps.transfer(id)).resolves.toBe('claimed');
    expect(await holdOf(cert!)).toEqual({ handover_kind: null, handover_id: null });
    // The issuer no longer holds it: refused as before (not for a hand-over).
    expect(await refusal(giftOf(cert!))).toMatchObject({ code: 'validation_failed' });
  }, 60_000);
});

describe('the pages tell the truth', () => {
  it('a voucher whose certificate is held by another hand-over or moved away shows unavailable and its claim is refused', async () => {
    const [a, b] = await minted('truth-1', 2);
    const [va] = (await voucherFor(a!)).vouchers;
    // Old data: a gift took the certificate before exclusivity existed.
    await pool.query(
      "UPDATE certificates SET handover_kind = 'gift', handover_id = 'gift_old' WHERE id = $1",
      [a],
    );
    expect((await vouchers.getPublicVoucher({ voucher_id: va!.id }, CALL)).voucher!.status).toBe(
      'unavailable',
    );
    expect(
      await refusal(vouchers.claimVoucher({ principal: recipient(), voucher_id: va!.id }, CALL)),
    ).toEqual(lockedBy('gift'));

    const [vb] = (await voucherFor(b!)).vouchers;
    // Moved away (old data): the holder is no wallet of the issuer.
    await pool.query(
      "UPDATE certificates SET holder_address = '0x000000000000000000000000000000000000dEaD', handover_kind = NULL, handover_id = NULL WHERE id = $1",
      [b],
    );
    expect((await vouchers.getPublicVoucher({ voucher_id: vb!.id }, CALL)).voucher!.status).toBe(
      'unavailable',
    );
    expect(
      await refusal(vouchers.claimVoucher({ principal: recipient(), voucher_id: vb!.id }, CALL)),
    ).toMatchObject({
      code: 'validation_failed',
      message: expect.stringContaining('no longer held by its issuer'),
    });
  }, 60_000);

  it("a gift's claim link shows unavailable when its certificate is held by another hand-over, and its claim is refused 409", async () => {
    const [cert] = await minted('truth-2');
    const { claim_token } = await giftOf(cert!);
    expect((await gifts.getGiftByToken({ token: claim_token }, CALL)).status).toBe('pending');
    await pool.query(
      "UPDATE certificates SET handover_kind = 'voucher', handover_id = 'v_old' WHERE id = $1",
      [cert],
    );
    expect((await gifts.getGiftByToken({ token: claim_token }, CALL)).status).toBe('unavailable');
    expect(await refusal(giftService.claim(recipient(), claim_token, 0))).toEqual(
      lockedBy('certificate voucher'),
    );
    // Refused whole: the gift is still pending, not taken.
    expect((await giftService.view(claim_token)).gift.status).toBe('pending');
  }, 60_000);
});

describe('migration 1801 on data that already broke the rule', () => {
  it('gives each certificate one hold (a hand-over under way first, else the oldest) and voids or revokes the others, with the reason', async () => {
    // A database migrated up to the one before 1801, holding old rows, then migrated on.
    const dir = path.join(import.meta.dirname, '..', 'migrations');
    const before = mkdtempSync(join(tmpdir(), 'hallmark-migrations-'));
    for (const f of readdirSync(dir).filter((f) => f < '1801')) copyFileSync(join(dir, f), join(before, f));
    const name = uniqueDatabaseName('certificates');
    const old = await openDatabase({
      serverUrl: TEST_DATABASE_SERVER,
      database: name,
      migrationsDirs: [before],
    });
    const ent = newId('enterprise');
    const holder = '0x' + '11'.repeat(20);
    await old.query(
      `INSERT INTO certificate_batches (id, enterprise_id, livemode, idempotency_key, request_hash, holder_address,
         quantity, merkle_root) VALUES ('batch_old', $1, true, 'k', 'h', $2, 3, 'r')`,
      [ent, holder],
    );
    for (const [i, c] of ['cert_a', 'cert_b', 'cert_c'].entries()) {
      await old.query(
        `INSERT INTO certificates (id, enterprise_id, livemode, batch_id, position, token_id, name, metadata,
           metadata_hash, holder_address, status) VALUES ($1, $2, true, 'batch_old', $3::int, $3::int, 'x', '{}', 'h', $4, 'minted')`,
        [c, ent, i, holder],
      );
    }
    await old.query(
      `INSERT INTO certificate_voucher_requests (id, enterprise_id, livemode, idempotency_key, request_hash)
       VALUES (1, $1, true, 'k', 'h')`,
      [ent],
    );
    const voucher = (id: string, cert: string, age: string) =>
      old.query(
        `INSERT INTO certificate_vouchers (id, enterprise_id, livemode, request_id, position, reference_number, url,
           certificate_id, metadata, expires_at, created_at)
         VALUES ($1, $2, true, 1, 0, $1, 'u', $3, '{}', now() + interval '10 days', now() - $4::interval)`,
        [id, ent, cert, age],
      );
    const gift = (id: string, cert: string, age: string, status: string) =>
      old.query(
        `INSERT INTO gifts (id, enterprise_id, livemode, certificate_id, creator_id, sender_address,
           recipient_email_enc, claim_token_hash, status, expires_at, created_at)
         VALUES ($1, $2, true, $3, 'user_x', $4, 'e', $1, $5, now() + interval '5 days', now() - $6::interval)`,
        [id, ent, cert, holder, status, age],
      );
    await voucher('v_a', 'cert_a', '2 hours'); // older: keeps cert_a
    await gift('gift_a', 'cert_a', '1 hour', 'pending');
    await gift('gift_b', 'cert_b', '2 hours', 'pending'); // older: keeps cert_b
    await voucher('v_b', 'cert_b', '1 hour');
    await voucher('v_c', 'cert_c', '2 hours');
    await gift('gift_c', 'cert_c', '1 hour', 'claiming'); // under way: keeps cert_c
    await old.end();

    const migrated = await openDatabase({
      serverUrl: TEST_DATABASE_SERVER,
      database: name,
      migrationsDirs: [dir],
    });
    try {
      const { rows: holds } = await migrated.query(
        'SELECT id, handover_kind, handover_id, handover_until IS NULL AS no_lapse FROM certificates ORDER BY id',
      );
      expect(holds).toEqual([
        { id: 'cert_a', handover_kind: 'voucher', handover_id: 'v_a', no_lapse: false },
        { id: 'cert_b', handover_kind: 'gift', handover_id: 'gift_b', no_lapse: false },
        { id: 'cert_c', handover_kind: 'gift', handover_id: 'gift_c', no_lapse: true },
      ]);
      const { rows: vs } = await migrated.query(
        'SELECT id, voided_at IS NOT NULL AS voided, void_reason FROM certificate_vouchers ORDER BY id',
      );
      expect(vs).toEqual([
        { id: 'v_a', voided: false, void_reason: null },
        { id: 'v_b', voided: true, void_reason: expect.stringContaining('another pending hand-over') },
        { id: 'v_c', voided: true, void_reason: expect.stringContaining('another pending hand-over') },
      ]);
      const { rows: gs } = await migrated.query('SELECT id, status FROM gifts ORDER BY id');
      expect(gs).toEqual([
        { id: 'gift_a', status: 'revoked' },
        { id: 'gift_b', status: 'pending' },
        { id: 'gift_c', status: 'claiming' },
      ]);
    } finally {
      await closeTestDatabase(migrated, name);
      rmSync(before, { recursive: true, force: true });
    }
  }, 60_000);
});
