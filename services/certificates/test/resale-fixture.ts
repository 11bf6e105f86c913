// The shared stack of resale.test.ts and ownership-links.test.ts (docs/resale.md): a real
// PostgreSQL and anvil, the certificates, gift, resale and ownership slices in-process, and the
// helpers that make an owner, start a resale and let the buyer claim. Restate and notify are not
// running: the workflow's steps are called as it would call them, and the claim token is
// derived with the key ring as the e-mail would carry it. Importing this module registers the
// beforeAll/afterAll that start and stop the stack for the importing test file.
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
import { Relayer } from '../src/chain/relayer.js';
import type { Chain } from '../src/chain/setup.js';
import { connectTestChain } from './test-chain.js';
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

export const CALL = { requestId: 'req_test', deadlineMs: Infinity };
const log = createLogger('certificates-test', 'silent');
const anvilLog = join(tmpdir(), `hallmark-anvil-resale-${process.pid}.log`);
const KEYS = Encryptor.generateKey();
const NOWHERE = '127.0.0.1:1'; // Restate and notify are not running in this test

let anvil: AnvilHandle;
let database: string;
export let pool: Pool;
export let chain: Chain;
export let relayer: Relayer;
export let api: ReturnType<typeof createCertificatesHandlers>;
export let gifts: ReturnType<typeof createGiftHandlers>;
export let giftService: GiftService;
export let steps: GiftSteps;
let giftStore: GiftStore;
export let resale: ReturnType<typeof createResaleHandlers>;
export let ownership: ReturnType<typeof createOwnershipHandlers>;
/** Records transfers without sending them (they stay pending until `drive`). */
let idle: TransferService;
let drive: () => Promise<number>;
const closers: Array<() => void> = [];

export const issuer: Principal = {
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

export const ownerOf = (enterpriseId = issuer.enterprise_id): Principal => ({
  enterprise_id: enterpriseId,
  livemode: true,
  actor_id: newId('user'),
  actor_type: 'user',
  scopes: ['admin.*'],
});
export const SELLER_EMAIL = 'owner@example.com';
const tokens = new ClaimTokens(KEYS);

/** A certificate minted to the issuer, then moved to `owner`'s custodial wallet (a first sale). */
export async function ownedBy(
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

export const startResale = (owner: Principal, certificateId: string, email = SELLER_EMAIL) =>
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
export async function linkOf(resaleId: string): Promise<string> {
  const g = await giftStore.find(resaleId);
  return tokens.recover(resaleId, g!.tokenHash)!;
}

/** The buyer claims and the workflow's transfer step runs to the end. */
export async function buyerClaims(resaleId: string, buyer: Principal) {
  await giftService.claim(buyer, await linkOf(resaleId), 0);
  await expect(steps.transfer(resaleId)).rejects.toBeInstanceOf(NotYet);
  await drive();
  await expect(steps.transfer(resaleId)).resolves.toBe('claimed');
}

export async function refusal(p: Promise<unknown>): Promise<HallmarkError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof HallmarkError) return err;
    throw err;
  }
  throw new Error('expected a refusal');
}

export const eventsOf = async (resaleId: string) =>
  (
    await pool.query<{ type: string; enterprise_id: string }>(
      `SELECT type, payload->>'enterprise_id' AS enterprise_id FROM outbox
        WHERE type LIKE 'certificate.resale_%' AND payload->'data'->'object'->>'id' = $1 ORDER BY seq`,
      [resaleId],
    )
  ).rows;

export const holdOf = async (certificateId: string) =>
  (await pool.query('SELECT handover_kind, handover_id FROM certificates WHERE id = $1', [certificateId]))
    .rows[0];

export const brandKey = issuer;
export const setPolicy = (approval_required: boolean, principal = brandKey) =>
  resale.setResalePolicy({ principal, approval_required }, CALL);
