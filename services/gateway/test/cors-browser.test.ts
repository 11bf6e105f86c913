// The CORS boundary in a real browser: headless Chromium (Debian's `chromium`, driven by
// playwright-core) opens a page served from another origin (a tiny local HTTP server, as a
// marketplace's page would be) that calls the gateway. The open verification JSON is read, also
// with a header that needs a preflight; an authenticated route is refused by the browser itself,
// with or without a credential, and the refused preflight means the request never reached a
// service. The gateway is the real app on a real socket (route harness: fake downstream gRPC).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser, type Page } from 'playwright-core';
import { certificate } from './routes/fixtures.js';
import { startHarness, type Harness } from './routes/harness.js';

let h: Harness;
let browser: Browser;
let page: Page;
let site: Server;
let gateway: string;

beforeAll(async () => {
  h = await startHarness();
  await h.app.listen({ host: '127.0.0.1', port: 0 });
  gateway = `http://127.0.0.1:${(h.app.server.address() as AddressInfo).port}`;
  // The other origin: `localhost` on another port serves one empty page.
  site = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end('<!doctype html><title>marketplace</title><p>listing</p>');
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  // playwright gives the browser a fresh profile of its own.
  const context = await (browser = await chromium.launch({
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
  })).newContext();
  page = await context.newPage();
  await page.goto(`http://localhost:${(site.address() as AddressInfo).port}/`);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => site?.close(resolve));
  await h?.close();
});

/** Runs fetch in the page (the other origin): the status and body, or the browser's refusal. */
const fetchFromPage = (url: string, headers: Record<string, string> = {}) =>
  page.evaluate(
    async ({ url, headers }) => {
      try {
        const res = await fetch(url, { headers });
        return { status: res.status, body: await res.text(), refused: null as string | null };
      } catch (err) {
        return { status: 0, body: '', refused: String(err) };
      }
    },
    { url, headers },
  );

describe('a page on another origin, in Chromium', () => {
  it('reads the open verification JSON, also with a preflighted header', async () => {
    expect(new URL(page.url()).origin).not.toBe(gateway);
    h.answer('verification', 'verifyCertificate', async () => ({
      certificate: certificate(),
      checks: [{ name: 'record_found', passed: true, detail: 'ok' }],
      verified: true,
      burned: false,
      verified_at: '2025-01-02T00:00:00.000Z',
    }));
    const simple = await fetchFromPage(`${gateway}/api/certificate/verify/cert_1`);
    expect(simple.refused).toBeNull();
    expect(simple.status).toBe(200);
    expect(JSON.parse(simple.body)).toMatchObject({ id: 'cert_1', verified: true });
    // If-None-Match is not CORS-safelisted: the browser asks first (OPTIONS), then sends it.
    const preflighted = await fetchFromPage(`${gateway}/api/certificate/verify/cert_1`, {
      'if-none-match': '"not-this-one"',
      'x-request-id': 'marketplace-check-1',
    });
    expect(preflighted.refused).toBeNull();
    expect(preflighted.status).toBe(200);
  });

  it('is refused an authenticated route: with a key (the preflight fails, the request is never sent) and without one', async () => {
    const key = h.keyWith(['transactions.read']);
    h.answer('vouchers', 'listVouchers', async () => ({
      vouchers: [],
      pagination: { page: 1, limit: 20, total: 0, total_pages: 0 },
    }));
    const withKey = await fetchFromPage(`${gateway}/api/v1/vouchers`, key);
    expect(withKey.refused).toMatch(/TypeError: Failed to fetch/);
    expect(h.callsTo('vouchers', 'listVouchers')).toEqual([]);
    const anonymous = await fetchFromPage(`${gateway}/api/v1/vouchers`);
    expect(anonymous.refused).toMatch(/TypeError: Failed to fetch/);
    expect(h.callsTo('vouchers', 'listVouchers')).toEqual([]);
  });
});
