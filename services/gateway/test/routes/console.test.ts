// routes/console/: the console's build served at /console. Hidden from the OpenAPI document
// (and so from the route catalogue), tested here by hand. `pnpm test` builds the console first
// (scripts/test.ts); this file builds it too when run alone.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { brotliDecompressSync } from 'node:zlib';
import { buildConsole } from '../../../../packages/console/build.js';
import { startHarness, type Harness } from './harness.js';

const dist = path.resolve(import.meta.dirname, '..', '..', '..', '..', 'packages', 'console', 'dist');
const ISSUER = 'https://login.brand.example/tenant';
let h: Harness;
let manifest: { entry: string; css: string };

beforeAll(async () => {
  if (!existsSync(path.join(dist, 'manifest.json'))) await buildConsole();
  manifest = JSON.parse(readFileSync(path.join(dist, 'manifest.json'), 'utf8'));
  h = await startHarness({ HALLMARK_CONSOLE_OIDC_ISSUER: ISSUER, HALLMARK_CONSOLE_DIR: dist });
}, 120_000);
afterAll(() => h.close());

describe('the console at /console', () => {
  it('answers its page for every app path, never cached, with the sign-in settings and a CSP that allows only here and the identity provider', async () => {
    for (const url of ['/console', '/console/', '/console/bulk', '/console/callback?code=x&state=y']) {
      const res = await h.app.inject({ method: 'GET', url });
      expect([url, res.statusCode]).toEqual([url, 200]);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.headers['cache-control']).toBe('no-store');
      const csp = String(res.headers['content-security-policy']);
      expect(csp).toContain("script-src 'self'");
      expect(csp).toContain("connect-src 'self' https://login.brand.example");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).not.toContain('unsafe');
      const meta = /<meta name="hallmark-oidc" content="([^"]*)"/.exec(res.body)![1]!.replace(/&quot;/g, '"');
      expect(JSON.parse(meta)).toEqual({
        issuer: ISSUER,
        clientId: 'hallmark-console',
        scope: 'openid email profile',
      });
      expect(res.body).toContain(`src="/console/${manifest.entry}"`);
    }
    expect(h.calls).toEqual([]);
  });

  it('serves hashed assets with a year of immutable cache, brotli when asked, and 404 for a name not built', async () => {
    const res = await h.app.inject({
      method: 'GET',
      url: `/console/${manifest.entry}`,
      headers: { 'accept-encoding': 'gzip, br' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(res.headers['content-encoding']).toBe('br');
    expect(brotliDecompressSync(res.rawPayload).toString()).toBe(
      readFileSync(path.join(dist, manifest.entry), 'utf8'),
    );
    const css = await h.app.inject({ method: 'GET', url: `/console/${manifest.css}` });
    expect(css.headers['content-type']).toBe('text/css; charset=utf-8');
    expect(css.headers['content-encoding']).toBeUndefined();
    for (const url of [
      '/console/assets/main-NOTBUILT.js',
      '/console/assets/manifest.json',
      '/console/assets/',
    ]) {
      const missing = await h.app.inject({ method: 'GET', url });
      expect([url, missing.statusCode]).toEqual([url, 404]);
    }
  });
});
