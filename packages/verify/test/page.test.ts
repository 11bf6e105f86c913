// The static verifier page (static/verifier.html): committed up to date with the package, and in
// headless Chromium, opened from file:// with no Hallmark process (the issuer's host stopped),
// it verifies a bundle against anvil from the chain alone and says why the issuer and the status
// are unknown; a tampered bundle is shown as not verified.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { buildFixture, IMAGE, type Fixture } from './fixture.js';

const pkgDir = path.resolve(import.meta.dirname, '..');
const pageUrl = pathToFileURL(path.join(pkgDir, 'static', 'verifier.html')).href;

let fx: Fixture;
let browser: Browser;
let tmp: string;

beforeAll(async () => {
  tmp = mkdtempSync(path.join(tmpdir(), 'hallmark-verify-page-'));
  [fx, browser] = await Promise.all([
    buildFixture(),
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
  // Hallmark is gone: the issuer's did.json and the status list no longer answer.
  await fx.host.close();
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await fx?.stop();
  rmSync(tmp, { recursive: true, force: true });
});

async function verifyInPage(bundle: unknown, image?: Buffer): Promise<Page> {
  const file = path.join(tmp, `hallmark-proof-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(file, JSON.stringify(bundle, null, 2));
  const page = await browser.newPage();
  await page.goto(pageUrl);
  await page.getByLabel('Chain RPC URL').fill(fx.anvil.rpcUrl);
  await page.getByLabel('Proof bundle (JSON file)').setInputFiles(file);
  if (image) {
    await page
      .getByLabel('Certificate image (optional)')
      .setInputFiles({ name: 'watch.png', mimeType: 'image/png', buffer: image });
  }
  await page.getByRole('button', { name: 'Verify' }).click();
  await page.waitForFunction("document.getElementById('checks').children.length > 0", undefined, {
    timeout: 30_000,
  });
  return page;
}

const resultsOf = (page: Page) =>
  page.$$eval('#checks li', (lis) =>
    Object.fromEntries(lis.map((li) => [li.dataset.check, li.dataset.result])),
  );

describe('the static verifier page', () => {
  it('is built from the current package (static/verifier.html is not stale) and its script type-checks', () => {
    execFileSync(process.execPath, ['build-page.mjs', '--check'], { cwd: pkgDir, stdio: 'pipe' });
    const tsc = path.resolve(pkgDir, '../../node_modules/typescript/bin/tsc');
    expect(
      execFileSync(process.execPath, [tsc, '-p', 'page/tsconfig.json', '--noEmit'], {
        cwd: pkgDir,
        encoding: 'utf8',
      }),
    ).toBe('');
  }, 60_000);

  it('opened from file:// with Hallmark stopped, verifies a bundle against anvil and explains the unknowns', async () => {
    const page = await verifyInPage(fx.bundle(0), IMAGE);
    expect(await page.locator('#checks').textContent()).not.toContain('failed');
    expect(await page.locator('#status').getAttribute('data-status')).toBe('valid');
    expect(await page.locator('#status').textContent()).toContain('Verified');
    expect(await resultsOf(page)).toEqual({
      bundle_format: 'passed',
      issuer_did: 'unknown',
      credential_signature: 'passed',
      credential_matches_bundle: 'passed',
      metadata_hash: 'passed',
      chain_id: 'passed',
      mint_transaction: 'passed',
      merkle_proof: 'passed',
      token: 'passed',
      status_list: 'unknown',
      image: 'passed',
    });
    const notes = await page.locator('#notes li').allTextContents();
    expect(notes.some((n) => n.startsWith('Issuer domain unreachable'))).toBe(true);
    expect(notes.some((n) => n.startsWith('Status unknown'))).toBe(true);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Verify a Hallmark certificate');
    await page.close();
  }, 60_000);

  it('shows a tampered bundle as not verified, naming the failed checks', async () => {
    const bundle = fx.bundle(1);
    bundle.metadata.metadata.artist = 'Not Ada';
    bundle.credential.credentialSubject.metadata = { ...bundle.metadata.metadata };
    const page = await verifyInPage(bundle);
    expect(await page.locator('#status').getAttribute('data-status')).toBe('invalid');
    const results = await resultsOf(page);
    expect(results.credential_signature).toBe('failed');
    expect(results.merkle_proof).toBe('failed');
    await page.close();
  }, 60_000);
});
