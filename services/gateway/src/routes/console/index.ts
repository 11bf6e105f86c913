// The brand console (packages/console) at /console: its built files, read once at start.
// Hashed assets (/console/assets/<name>-<hash>.js|css) are sent with a year's immutable cache
// and precompressed (brotli, gzip) by Accept-Encoding; every other path under /console is the
// app's page (it routes in the browser), never cached, with the sign-in settings in a <meta>
// and a CSP that allows scripts and styles from here only and connections to here and to the
// identity provider (OIDC discovery and token exchange). The console talks to the API like any
// client; nothing here reads a credential. Probes-like: declared, kept out of the document.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { defineEndpoint, registerEndpoints } from '../../endpoint/define.js';
import type { Config } from '../../config.js';
import type { RouteDeps } from '../shared.js';

interface Asset {
  type: string;
  raw: Buffer;
  br: Buffer;
  gzip: Buffer;
}

interface Built {
  assets: Map<string, Asset>;
  page: Asset;
}

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.html': 'text/html; charset=utf-8',
};
const IMMUTABLE = 'public, max-age=31536000, immutable';

const compressed = (type: string, raw: Buffer): Asset => ({
  type,
  raw,
  br: brotliCompressSync(raw, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }),
  gzip: gzipSync(raw, { level: 9 }),
});

const attr = (s: string) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

/**
 * Where the console's build is: HALLMARK_CONSOLE_DIR when set; else the workspace's
 * packages/console/dist (`pnpm start`, `pnpm test` build it there: first, so a copy a
 * production-tree build left in the checkout is never served stale), else console/ beside the
 * gateway's own files (the production tree, where scripts/prod-tree.ts builds it). The gateway
 * does not depend on the console package: that would close a cycle through the client's test
 * dependencies.
 */
export function consoleDist(config: Config): string | null {
  const gatewayRoot = path.resolve(import.meta.dirname, '..', '..', '..');
  const candidates = config.HALLMARK_CONSOLE_DIR
    ? [config.HALLMARK_CONSOLE_DIR]
    : [path.join(gatewayRoot, '..', '..', 'packages', 'console', 'dist'), path.join(gatewayRoot, 'console')];
  return candidates.find((dir) => existsSync(path.join(dir, 'manifest.json'))) ?? null;
}

/**
 * The console's files and its page with this deployment's sign-in settings, or null when not
 * built — or not whole (a build replacing it as it is read): the API never fails to start for
 * the console; the console answers 503 until the gateway restarts on a whole build.
 */
export function loadConsole(config: Config, dist = consoleDist(config)): Built | null {
  if (!dist) return null;
  try {
    return readConsole(config, dist);
  } catch {
    return null;
  }
}

function readConsole(config: Config, dist: string): Built {
  const manifest = JSON.parse(readFileSync(path.join(dist, 'manifest.json'), 'utf8')) as { files: string[] };
  const assets = new Map<string, Asset>();
  for (const file of manifest.files) {
    const type = TYPES[path.extname(file)];
    if (type)
      assets.set(file.replace(/^assets\//, ''), compressed(type, readFileSync(path.join(dist, file))));
  }
  const oidc = config.HALLMARK_CONSOLE_OIDC_ISSUER
    ? JSON.stringify({
        issuer: config.HALLMARK_CONSOLE_OIDC_ISSUER,
        clientId: config.HALLMARK_CONSOLE_OIDC_CLIENT_ID,
        scope: config.HALLMARK_CONSOLE_OIDC_SCOPE,
      })
    : '';
  const html = readFileSync(path.join(dist, 'index.html'), 'utf8').replace('%OIDC%', attr(oidc));
  return { assets, page: compressed(TYPES['.html']!, Buffer.from(html)) };
}

/** The page's policy: only this origin's scripts and styles; fetches here and to the identity provider. */
export function consoleCsp(config: Config): string {
  const idp = config.HALLMARK_CONSOLE_OIDC_ISSUER
    ? ` ${new URL(config.HALLMARK_CONSOLE_OIDC_ISSUER).origin}`
    : '';
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    `connect-src 'self'${idp}`,
    "form-action 'self'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

function send(request: FastifyRequest, reply: FastifyReply, asset: Asset, cacheControl: string) {
  const accepts = String(request.headers['accept-encoding'] ?? '');
  const [body, encoding] = /\bbr\b/.test(accepts)
    ? [asset.br, 'br']
    : /\bgzip\b/.test(accepts)
      ? [asset.gzip, 'gzip']
      : [asset.raw, undefined];
  void reply
    .header('content-type', asset.type)
    .header('cache-control', cacheControl)
    .header('vary', 'accept-encoding');
  if (encoding) void reply.header('content-encoding', encoding);
  return reply.send(body);
}

export default async function consoleRoutes(app: FastifyInstance, deps: RouteDeps) {
  const built = loadConsole(deps.config);
  if (!built && consoleDist(deps.config))
    app.log.warn('console: its build could not be read whole; /console answers 503 until a restart');
  const csp = consoleCsp(deps.config);
  const notBuilt = (reply: FastifyReply) =>
    reply
      .status(503)
      .header('content-type', 'text/plain; charset=utf-8')
      .send('The console is not built: run `pnpm --filter @hallmark/console build`.');
  const page = (request: FastifyRequest, reply: FastifyReply) => {
    if (!built) return notBuilt(reply);
    void reply.header('content-security-policy', csp).header('referrer-policy', 'no-referrer');
    return send(request, reply, built.page, 'no-store');
  };

  const root = defineEndpoint({
    method: 'GET',
    url: '/console',
    hidden: true,
    responses: { 200: { description: 'The console', contentType: 'text/html' } },
    handler: async (request, { reply }) => page(request, reply),
  });
  const anyPath = defineEndpoint({
    method: 'GET',
    url: '/console/*',
    hidden: true,
    responses: { 200: { description: 'A console file or page', contentType: 'text/html' } },
    handler: async (request, { reply }) => {
      const rest = (request.params as { '*': string })['*'];
      if (!rest.startsWith('assets/')) return page(request, reply);
      if (!built) return notBuilt(reply);
      const asset = built.assets.get(rest.slice('assets/'.length));
      if (!asset)
        return reply.status(404).header('content-type', 'text/plain; charset=utf-8').send('Not found');
      return send(request, reply, asset, IMMUTABLE);
    },
  });
  registerEndpoints(app, deps, [root, anyPath]);
}
