// A local OpenID Connect provider for the console's dev sign-in (`pnpm start`, the console's
// browser test): the real protocol, so the console's code path is the one a brand's identity
// provider sees. Discovery (/.well-known/openid-configuration), the authorization endpoint (a
// sign-in form: user, role, enterprise), the token endpoint (authorization code + PKCE S256
// only, one use per code, CORS for a browser client) and the JWKS (one ES256 key per start).
// Its access and ID tokens carry the claims the gateway reads (`sub`, `ent`, `role`, `email`),
// and the gateway verifies them through HALLMARK_JWKS_URL = `jwksUrl`. Local use only: it
// signs in anyone who presses the button, and only redirects to loopback addresses.
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { exportJWK, generateKeyPair, SignJWT, type JWK } from 'jose';
import { track } from './registry.js';

export interface OidcProviderHandle {
  /** The issuer (HALLMARK_CONSOLE_OIDC_ISSUER). */
  issuer: string;
  /** For HALLMARK_JWKS_URL. */
  jwksUrl: string;
  port: number;
  stop(): Promise<void>;
}

export interface OidcProviderOptions {
  port?: number;
  /** The enterprise the form offers (the dev stack's demo enterprise). */
  enterpriseId: string;
  /** Default 'hallmark-console'. */
  clientId?: string;
  /** Lifetime of the tokens it issues (default 1 h; the gateway accepts at most 24 h). */
  ttlSec?: number;
}

interface Grant {
  redirectUri: string;
  challenge: string;
  nonce: string | null;
  scope: string;
  claims: { sub: string; ent: string; role: string; email: string };
  expires: number;
}

const CODE_TTL_MS = 60_000;
const ROLES = ['owner', 'admin', 'member'];
const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);
const CORS = { 'access-control-allow-origin': '*', 'access-control-allow-headers': 'content-type' };
const ENT_RE = /^ent_[0-9A-Za-z]{24}$/;
const SUB_RE = /^[\w.@-]{1,64}$/;

const esc = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

async function readForm(req: IncomingMessage): Promise<URLSearchParams> {
  let raw = '';
  for await (const chunk of req) {
    raw += String(chunk);
    if (raw.length > 16 * 1024) throw new Error('body too large');
  }
  return new URLSearchParams(raw);
}

function json(res: ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store', ...CORS });
  res.end(JSON.stringify(body));
}

/** The authorization request's problem (RFC 6749 §4.1.2.1, PKCE required), or null. */
function requestProblem(q: URLSearchParams, clientId: string): string | null {
  if (q.get('response_type') !== 'code') return 'response_type must be code';
  if (q.get('client_id') !== clientId) return `unknown client_id (this provider serves ${clientId})`;
  if (q.get('code_challenge_method') !== 'S256' || !/^[\w-]{43}$/.test(q.get('code_challenge') ?? ''))
    return 'PKCE is required: code_challenge with code_challenge_method=S256';
  if (!(q.get('scope') ?? '').split(' ').includes('openid')) return 'scope must include openid';
  let redirect: URL;
  try {
    redirect = new URL(q.get('redirect_uri') ?? '');
  } catch {
    return 'redirect_uri is missing or not a URL';
  }
  if (redirect.protocol !== 'http:' || !LOOPBACK.has(redirect.hostname))
    return 'this local provider only redirects to a loopback address';
  return null;
}

function signInPage(q: URLSearchParams, enterpriseId: string): string {
  const hidden = [...q.entries()]
    .map(([k, v]) => `<input type="hidden" name="${esc(k)}" value="${esc(v)}">`)
    .join('');
  const roles = ROLES.map((r) => `<option${r === 'owner' ? ' selected' : ''}>${r}</option>`).join('');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>Local sign-in</title>
<style>body{font:16px system-ui,sans-serif;max-width:28rem;margin:3rem auto;padding:0 1rem}
label{display:block;margin:.8rem 0 .2rem}input,select{font:inherit;width:100%;padding:.4rem}
button{font:inherit;margin-top:1.2rem;padding:.5rem 1.2rem}</style></head>
<body><main><h1>Local sign-in</h1>
<p>The dev stack's stand-in for your identity provider. Anyone may sign in here.</p>
<form method="post" action="/authorize">${hidden}
<label for="sub">User</label><input id="sub" name="sub" value="dev-user" required pattern="[\\w.@-]{1,64}">
<label for="email">E-mail</label><input id="email" name="email" type="email" value="dev-user@hallmark.local" required>
<label for="role">Role</label><select id="role" name="role">${roles}</select>
<label for="ent">Enterprise</label><input id="ent" name="ent" value="${esc(enterpriseId)}" required>
<button type="submit">Sign in</button></form></main></body></html>`;
}

export async function startOidcProvider(opts: OidcProviderOptions): Promise<OidcProviderHandle> {
  const clientId = opts.clientId ?? 'hallmark-console';
  const ttlSec = opts.ttlSec ?? 3600;
  const { privateKey, publicKey } = await generateKeyPair('ES256');
  const kid = randomBytes(8).toString('hex');
  const jwk: JWK = { ...(await exportJWK(publicKey)), kid, alg: 'ES256', use: 'sig' };
  const grants = new Map<string, Grant>();
  let issuer = '';

  const sign = (claims: Record<string, unknown>, aud: string) =>
    new SignJWT(claims)
      .setProtectedHeader({ alg: 'ES256', kid, typ: 'JWT' })
      .setIssuer(issuer)
      .setAudience(aud)
      .setIssuedAt()
      .setExpirationTime(Math.floor(Date.now() / 1000) + ttlSec)
      .sign(privateKey);

  async function authorize(req: IncomingMessage, res: ServerResponse, url: URL) {
    const q = req.method === 'POST' ? await readForm(req) : url.searchParams;
    const problem = requestProblem(q, clientId);
    if (problem) {
      res.writeHead(400, { 'content-type': 'text/plain; charset=utf-8' });
      return res.end(`invalid_request: ${problem}`);
    }
    if (req.method === 'GET') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
      return res.end(signInPage(q, opts.enterpriseId));
    }
    const redirect = new URL(q.get('redirect_uri')!);
    const [sub, ent, role, email] = ['sub', 'ent', 'role', 'email'].map((k) => q.get(k) ?? '');
    if (!SUB_RE.test(sub!) || !ENT_RE.test(ent!) || !ROLES.includes(role!) || !email!.includes('@')) {
      redirect.searchParams.set('error', 'access_denied');
    } else {
      const code = randomBytes(24).toString('base64url');
      grants.set(code, {
        redirectUri: q.get('redirect_uri')!,
        challenge: q.get('code_challenge')!,
        nonce: q.get('nonce'),
        scope: q.get('scope')!,
        claims: { sub: sub!, ent: ent!, role: role!, email: email! },
        expires: Date.now() + CODE_TTL_MS,
      });
      redirect.searchParams.set('code', code);
    }
    if (q.get('state')) redirect.searchParams.set('state', q.get('state')!);
    redirect.searchParams.set('iss', issuer);
    res.writeHead(303, { location: redirect.href });
    res.end();
  }

  async function token(req: IncomingMessage, res: ServerResponse) {
    const f = await readForm(req);
    if (f.get('grant_type') !== 'authorization_code')
      return json(res, 400, { error: 'unsupported_grant_type' });
    const code = f.get('code') ?? '';
    const grant = grants.get(code);
    grants.delete(code); // one use, whatever follows
    const verifier = f.get('code_verifier') ?? '';
    const ok =
      grant &&
      grant.expires > Date.now() &&
      f.get('client_id') === clientId &&
      f.get('redirect_uri') === grant.redirectUri &&
      /^[\w.~-]{43,128}$/.test(verifier) &&
      createHash('sha256').update(verifier).digest('base64url') === grant.challenge;
    if (!ok) return json(res, 400, { error: 'invalid_grant' });
    const { claims } = grant;
    const profile = { ...claims, email_verified: true };
    json(res, 200, {
      token_type: 'Bearer',
      expires_in: ttlSec,
      scope: grant.scope,
      // What the console sends to the API: the gateway reads sub, ent, role and email from it.
      access_token: await sign({ ...profile, scope: grant.scope, client_id: clientId }, 'hallmark'),
      id_token: await sign({ ...profile, ...(grant.nonce ? { nonce: grant.nonce } : {}) }, clientId),
    });
  }

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const fail = (err: unknown) => json(res, 400, { error: 'invalid_request', detail: String(err) });
    if (req.method === 'OPTIONS') {
      res.writeHead(204, { ...CORS, 'access-control-allow-methods': 'GET, POST' });
      return res.end();
    }
    if (url.pathname === '/.well-known/openid-configuration')
      return json(res, 200, {
        issuer,
        authorization_endpoint: `${issuer}/authorize`,
        token_endpoint: `${issuer}/token`,
        jwks_uri: `${issuer}/jwks`,
        response_types_supported: ['code'],
        grant_types_supported: ['authorization_code'],
        subject_types_supported: ['public'],
        id_token_signing_alg_values_supported: ['ES256'],
        code_challenge_methods_supported: ['S256'],
        token_endpoint_auth_methods_supported: ['none'],
        scopes_supported: ['openid', 'email', 'profile'],
        authorization_response_iss_parameter_supported: true,
      });
    if (url.pathname === '/jwks') return json(res, 200, { keys: [jwk] });
    if (url.pathname === '/authorize') return void authorize(req, res, url).catch(fail);
    if (url.pathname === '/token' && req.method === 'POST') return void token(req, res).catch(fail);
    json(res, 404, { error: 'not_found' });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as { port: number }).port;
  issuer = `http://127.0.0.1:${port}`;
  let stopping: Promise<void> | undefined;
  const handle: OidcProviderHandle = {
    issuer,
    jwksUrl: `${issuer}/jwks`,
    port,
    stop() {
      stopping ??= new Promise<void>((resolve) => {
        untrack();
        server.closeAllConnections();
        server.close(() => resolve());
      });
      return stopping;
    },
  };
  const untrack = track(handle);
  return handle;
}
