// The stack of search.test.ts, without a chain: a real PostgreSQL with the service's
// migrations, certificates recorded by MintBatch (pending: no chain is needed to find them),
// certificate vouchers and gifts written by their own stores (so their e-mail index is the
// one the service writes), and the search and gift-list handlers in-process.
import { afterAll, beforeAll } from '@jest/globals';
import { Encryptor, newId, openDatabase, randomHex, scopeOf, type Pool } from '@hallmark/kit';
import { closeTestDatabase, TEST_DATABASE_SERVER, uniqueDatabaseName } from '@hallmark/kit/testing';
import type { Principal } from '@hallmark/proto/common/v1/common';
import path from 'node:path';
import { createCertificateVoucherHandlers } from '../src/certificate-vouchers/rpc.js';
import { CertificateVoucherStore } from '../src/certificate-vouchers/store.js';
import { RecipientEmailIndex } from '../src/domain/email-index.js';
import { createGiftHandlers } from '../src/gifts/rpc.js';
import { GiftService, type GiftServiceDeps } from '../src/gifts/service.js';
import { GiftStore } from '../src/gifts/store.js';
import { createCertificatesHandlers } from '../src/rpc.js';
import { createSearchHandlers } from '../src/search/rpc.js';
import { SearchService } from '../src/search/service.js';
import { SearchStore } from '../src/search/store.js';
import { CertificatesStore } from '../src/store.js';

export const CALL = { requestId: 'req_test', deadlineMs: Infinity };
export const KEYS = Encryptor.generateKey();
const HOLDER = '0x' + '55'.repeat(20);

let database: string;
export let pool: Pool;
export let searchStore: SearchStore;
let api: ReturnType<typeof createCertificatesHandlers>;
let vouchers: ReturnType<typeof createCertificateVoucherHandlers>;
let giftStore: GiftStore;
export let search: ReturnType<typeof createSearchHandlers>;
export let gifts: ReturnType<typeof createGiftHandlers>;

export const principal = (enterpriseId: string = newId('enterprise'), livemode = true): Principal => ({
  enterprise_id: enterpriseId,
  livemode,
  actor_id: newId('apiKey'),
  actor_type: 'api_key',
  scopes: [],
});

beforeAll(async () => {
  database = uniqueDatabaseName('certificates_search');
  pool = await openDatabase({
    serverUrl: TEST_DATABASE_SERVER,
    database,
    migrationsDirs: [path.join(import.meta.dirname, '..', 'migrations')],
    max: 4,
  });
  const store = new CertificatesStore(pool, () => '0x' + '22'.repeat(20));
  api = createCertificatesHandlers({ store, provider: null });
  vouchers = createCertificateVoucherHandlers({
    vouchers: new CertificateVoucherStore(pool, { publicUrl: 'https://h.test', encryptionKeys: KEYS }),
    certificates: store,
  });
  giftStore = new GiftStore(pool, KEYS);
  // ListGifts reads only the gift store; the claim path's parts (wallets, notifier, Restate) play
  // no part in it and are left out.
  gifts = createGiftHandlers(new GiftService({ gifts: giftStore } as unknown as GiftServiceDeps));
  searchStore = new SearchStore(pool);
  search = createSearchHandlers(
    new SearchService({ store: searchStore, emailIndex: new RecipientEmailIndex(KEYS) }),
  );
}, 60_000);

afterAll(async () => {
  await closeTestDatabase(pool, database);
});

/** One certificate, in its own batch (so each is newer than the one before). */
export async function mint(p: Principal, name: string, gs1?: { gtin: string; serial: string }) {
  const res = await api.mintBatch(
    {
      principal: p,
      idempotency_key: randomHex(8),
      holder_address: HOLDER,
      items: [{ name, ...(gs1 ?? {}) }],
    },
    CALL,
  );
  return res.certificates[0]!.id;
}

/** A certificate voucher for `certificateId`; answers its reference number. */
export async function voucher(p: Principal, certificateId: string, email?: string) {
  const res = await vouchers.createVouchers(
    {
      principal: p,
      idempotency_key: randomHex(8),
      items: [
        { certificate_id: certificateId, metadata_json: '{}', recipient_email: email, expiry_days: 30 },
      ],
    },
    CALL,
  );
  return res.vouchers[0]!.reference_number;
}

/** A pending gift of `certificateId` to `email`, written as GiftService.create writes it. */
export async function gift(p: Principal, certificateId: string, email: string) {
  const g = await giftStore.create(
    scopeOf(p),
    {
      id: newId('gift'),
      certificateId,
      recipientEmail: email,
      recipientPhone: null,
      message: null,
      tokenHash: randomHex(32),
      creatorId: p.actor_id,
      senderEmail: null,
      expiresAt: new Date(Date.now() + 86_400_000),
    },
    async () => HOLDER,
  );
  return g.id;
}

export const revokeGift = (id: string) => giftStore.revoke(id);
