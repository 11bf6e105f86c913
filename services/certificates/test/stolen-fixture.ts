// The shared stack of lost-and-stolen.test.ts and stolen-recovery.test.ts
// (docs/lost-and-stolen.md): a real PostgreSQL and anvil, the certificates, voucher, gift,
// transfer and stolen slices in-process (Restate and notify are not running), and the helpers
// that mint, hand a certificate to an owner, report, clear and read the outbox. Importing this
// module registers the beforeAll/afterAll that start and stop the stack for the importing file.
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path, { join } from 'node:path';
import { afterAll, beforeAll, expect } from '@jest/globals';
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
import { createCertificatesHandlers } from '../src/rpc.js';
import { CertificatesStore } from '../src/store.js';
import { TransferService } from '../src/transfers/service.js';
import { withTransfers } from '../src/transfers/workers/passes.js';
import { WalletStore } from '../src/wallets/store.js';
import { createStolenHandlers } from '../src/stolen/rpc.js';

export const CALL = { requestId: 'req_test', deadlineMs: Infinity };
const log = createLogger('certificates-test', 'silent');
const anvilLog = join(tmpdir(), `hallmark-anvil-stolen-${process.pid}.log`);
const KEYS = Encryptor.generateKey();
const NOWHERE = '127.0.0.1:1'; // Restate and notify are not running in this test

let anvil: AnvilHandle;
let database: string;
export let pool: Pool;
export let chain: Chain;
export let relayer: Relayer;
export let api: ReturnType<typeof createCertificatesHandlers>;
export let vouchers: ReturnType<typeof createCertificateVoucherHandlers>;
let gifts: ReturnType<typeof createGiftHandlers>;
export let giftService: GiftService;
/** Records transfers without sending them (the driven one below sends). */
let idle: TransferService;
export let stolen: ReturnType<typeof createStolenHandlers>;
export let voucherStore: CertificateVoucherStore;
export let claims: CertificateVoucherClaims;
const closers: Array<() => void> = [];

export const issuer: Principal = {
  enterprise_id: newId('enterprise'),
  livemode: true,
  actor_id: newId('apiKey'),
  actor_type: 'api_key',
  scopes: [],
};
export const recipient = (): Principal => ({
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
export async function minted(key: string, n = 1, holderAddress = ''): Promise<string[]> {
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
export async function ownedBy(owner: Principal, key: string): Promise<string> {
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

export const report = (
  principal: Principal,
  certificateId: string,
  kind = 'stolen',
  reason = 'Taken from a car',
) => stolen.reportStolen({ principal, certificate_id: certificateId, kind, reason }, CALL);
export const clear = (principal: Principal, certificateId: string, reason = 'Found again') =>
  stolen.clearStolen({ principal, certificate_id: certificateId, reason }, CALL);
export const voucherFor = (certificateId: string) =>
  vouchers.createVouchers(
    {
      principal: issuer,
      idempotency_key: newId('request'),
      items: [{ certificate_id: certificateId, expiry_days: 30, metadata_json: '{}' }],
    },
    CALL,
  );
export const giftOf = (certificateId: string) =>
  gifts.createGift(
    { principal: issuer, certificate_id: certificateId, recipient_email: 'bob@example.com' },
    CALL,
  );
export const transferOf = (certificateId: string, principal = issuer) =>
  api.transfer(
    {
      principal,
      certificate_id: certificateId,
      idempotency_key: newId('request'),
      to_user_id: newId('user'),
    },
    CALL,
  );

export async function refusal(p: Promise<unknown>): Promise<HallmarkError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof HallmarkError) return err;
    throw err;
  }
  throw new Error('expected a refusal');
}

export const reportedStolen = expect.objectContaining({
  code: 'certificate_reported_stolen',
  httpStatus: 409,
  message: expect.stringMatching(/was reported (stolen|lost) on \d{4}-\d{2}-\d{2}/),
});

export async function outbox(type: string, certificateId: string) {
  const { rows } = await pool.query<{ payload: { data: { object: Record<string, unknown> } } }>(
    `SELECT payload FROM outbox WHERE type = $1 AND payload->'data'->'object'->>'id' = $2 ORDER BY id`,
    [type, certificateId],
  );
  return rows.map((r) => r.payload.data.object);
}

export const kinds = async (certificateId: string) =>
  (await api.getPublicCertificate({ certificate_id: certificateId }, CALL)).provenance.map((p) => p.kind);
