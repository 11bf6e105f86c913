// The verify-page test's stack (verify-page.test.ts): the real processes on anvil with a short
// public cache TTL, headless Chromium (Debian's, driven by playwright-core), three certificates
// minted before the tests (a genuine one, one to burn, one with an archived image), and the
// helpers that open a page, read its checks, take a screenshot and reach the certificates
// database behind the service's back. Importing it registers the beforeAll/afterAll.
import { afterAll, beforeAll, expect } from '@jest/globals';
import { createGrpcClient, newId, serviceDatabaseUrl, type GrpcClient } from '@hallmark/kit';
import { eventually } from '@hallmark/kit/testing';
import { CertificatesServiceClient } from '@hallmark/proto/certificates/v1/certificates';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startTestStack, type TestStack } from '../src/index.js';

// anvil account 5: the batch's holding address; as the token owner it may burn.
export const HOLDER_INDEX = 5;
const HOLDER = '0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc';
export const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
export const CHECKS = ['record_found', 'on_chain', 'holder', 'metadata', 'not_burned'];

export let stack: TestStack;
export let client: GrpcClient<CertificatesServiceClient>;
let browser: Browser;
let shots: string;
export let genuine: { id: string; tokenId: number };
export let pictured: { id: string; tokenId: number };
export const IMAGE_SHA = 'ab12cd34'.repeat(8);
export let toBurn: { id: string; tokenId: number };

beforeAll(async () => {
  shots = mkdtempSync(path.join(tmpdir(), 'hallmark-verify-page-'));
  [stack, browser] = await Promise.all([
    // The gateway's public cache holds a page at most a second here: the tampered record below
    // changes the database behind the service's back (no event), so only the TTL drops it.
    startTestStack({ anvil: true, env: { HALLMARK_PUBLIC_CACHE_TTL_MS: '1000' } }),
    chromium.launch({
      executablePath: '/usr/bin/chromium',
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    }),
  ]);
  client = createGrpcClient(CertificatesServiceClient, stack.env.HALLMARK_CERTIFICATES_ADDR!);
  const res = await client.api.mintBatch({
    principal: {
      enterprise_id: newId('enterprise'),
      livemode: true,
      actor_id: newId('apiKey'),
      actor_type: 'api_key',
      scopes: [],
    },
    idempotency_key: 'verify-page-1',
    holder_address: HOLDER,
    items: [
      {
        name: 'Gold Watch <b>"No. 1"</b> & Co',
        image_url: 'https://img.hallmark.test/watch.png',
        metadata_json: JSON.stringify({ artist: '<script>alert(1)</script>', edition: 1 }),
        description: 'A gold watch',
        category: 'Watches',
      },
      { name: 'Silver Ring', metadata_json: '{"artist":"Ada"}' },
      {
        name: 'Pictured Vase',
        image_url: 'https://img.hallmark.test/vase.png',
        metadata_json: JSON.stringify({ image: { sha256: IMAGE_SHA, contentType: 'image/png' } }),
      },
    ],
  });
  const [a, b, c] = await Promise.all(
    res.certificates.map((c) =>
      eventually(
        async () => {
          const r = await stack.call('GET', `/api/certificate/public/${c.id}`);
          expect(r.body?.status).toBe('minted');
          return { id: c.id, tokenId: r.body.tokenId as number };
        },
        { timeoutMs: 30_000, intervalMs: 200 },
      ),
    ),
  );
  genuine = a!;
  toBurn = b!;
  pictured = c!;
}, 180_000);

afterAll(async () => {
  await browser?.close();
  client?.close();
  await stack?.close();
  // E2E_KEEP_SCREENSHOTS=1 keeps them to look at (the directory is printed).
  if (process.env.E2E_KEEP_SCREENSHOTS) console.log(`verify-page screenshots: ${shots}`);
  else rmSync(shots, { recursive: true, force: true });
}, 60_000);

export async function open(urlPath: string): Promise<{ page: Page; status: number }> {
  const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
  const response = await page.goto(stack.gatewayUrl + urlPath, { waitUntil: 'load' });
  return { page, status: response!.status() };
}

export async function checks(page: Page): Promise<Record<string, string>> {
  const items = await page.locator('[data-check]').all();
  const out: Record<string, string> = {};
  for (const li of items)
    out[(await li.getAttribute('data-check'))!] = (await li.getAttribute('data-passed'))!;
  return out;
}

export async function screenshot(page: Page, name: string): Promise<void> {
  const file = path.join(shots, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  expect(statSync(file).size).toBeGreaterThan(1000);
  expect(readFileSync(file).subarray(0, 8).equals(PNG_SIGNATURE)).toBe(true);
  await page.close();
}

export async function certificatesDb<T>(fn: (db: pg.Client) => Promise<T>): Promise<T> {
  const db = new pg.Client({
    connectionString: serviceDatabaseUrl(stack.postgres.url, `${stack.prefix}_certificates`),
  });
  await db.connect();
  try {
    return await fn(db);
  } finally {
    await db.end();
  }
}

export async function devContract(): Promise<string> {
  return certificatesDb(async (db) => {
    const { rows } = await db.query<{ value: string }>(
      "SELECT value FROM chain_state WHERE key = 'contract:31337'",
    );
    return rows[0]!.value;
  });
}
