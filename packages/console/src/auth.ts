// Sign-in: OpenID Connect, authorization code with PKCE (S256), as a public browser client.
// The gateway puts the provider's issuer and the console's client id in the page
// (<meta name="hallmark-oidc">); the provider's tokens are the ones the gateway verifies
// through HALLMARK_JWKS_URL. The access token is sent to the API as the session; it is kept
// in sessionStorage (this tab only, gone when it closes), never in a cookie, and dropped on
// expiry or on any 401 invalid_token.

export interface OidcSettings {
  issuer: string;
  clientId: string;
  scope: string;
}

export interface Session {
  accessToken: string;
  expiresAt: number;
  /** From the token's claims, for display only (the API decides what they mean). */
  email: string;
  enterprise: string;
  role: string;
}

const SESSION = 'hallmark.console.session';
const PENDING = 'hallmark.console.pending';
export const CALLBACK_PATH = '/console/callback';

export function settings(): OidcSettings | null {
  const raw = document.querySelector('meta[name="hallmark-oidc"]')?.getAttribute('content') ?? '';
  try {
    const s = JSON.parse(raw) as Partial<OidcSettings>;
    return s.issuer && s.clientId
      ? { issuer: s.issuer, clientId: s.clientId, scope: s.scope ?? 'openid' }
      : null;
  } catch {
    return null;
  }
}

const b64url = (bytes: Uint8Array) =>
  btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');
const random = (n: number) => b64url(crypto.getRandomValues(new Uint8Array(n)));

function claimsOf(jwt: string): Record<string, unknown> {
  try {
    const part = jwt.split('.')[1]!.replace(/-/g, '+').replace(/_/g, '/');
    const bytes = Uint8Array.from(atob(part), (c) => c.charCodeAt(0));
    return JSON.parse(new TextDecoder().decode(bytes)) as Record<string, unknown>;
  } catch {
    return {};
  }
}

async function discover(s: OidcSettings) {
  const res = await fetch(`${s.issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`);
  if (!res.ok) throw new Error(`The identity provider's discovery document answered ${res.status}.`);
  return (await res.json()) as { authorization_endpoint: string; token_endpoint: string; issuer: string };
}

export function currentSession(): Session | null {
  try {
    const s = JSON.parse(sessionStorage.getItem(SESSION) ?? 'null') as Session | null;
    return s && s.expiresAt > Date.now() + 5_000 ? s : null;
  } catch {
    return null;
  }
}

export function signOut(): void {
  sessionStorage.removeItem(SESSION);
}

/** Sends the browser to the provider's sign-in, to come back to `returnTo`. */
export async function signIn(s: OidcSettings, returnTo: string): Promise<never> {
  const meta = await discover(s);
  const verifier = random(32);
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier)));
  const pending = { verifier, state: random(16), nonce: random(16), returnTo };
  sessionStorage.setItem(PENDING, JSON.stringify(pending));
  const url = new URL(meta.authorization_endpoint);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: s.clientId,
    redirect_uri: location.origin + CALLBACK_PATH,
    scope: s.scope,
    state: pending.state,
    nonce: pending.nonce,
    code_challenge: b64url(digest),
    code_challenge_method: 'S256',
  }).toString();
  location.assign(url.href);
  return new Promise<never>(() => undefined);
}

/** Finishes a sign-in on the callback URL: the path to go back to. */
export async function completeSignIn(s: OidcSettings): Promise<string> {
  const q = new URLSearchParams(location.search);
  const pending = JSON.parse(sessionStorage.getItem(PENDING) ?? 'null') as {
    verifier: string;
    state: string;
    nonce: string;
    returnTo: string;
  } | null;
  sessionStorage.removeItem(PENDING);
  if (q.get('error')) throw new Error(`The identity provider refused the sign-in: ${q.get('error')}.`);
  if (!pending || q.get('state') !== pending.state)
    throw new Error('This sign-in answer does not match a sign-in started here; please sign in again.');
  const meta = await discover(s);
  // RFC 9207: an answer naming another issuer is a mix-up attack, not ours.
  if (q.get('iss') && q.get('iss') !== meta.issuer)
    throw new Error('The sign-in answer came from another issuer.');
  const res = await fetch(meta.token_endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code: q.get('code') ?? '',
      redirect_uri: location.origin + CALLBACK_PATH,
      client_id: s.clientId,
      code_verifier: pending.verifier,
    }),
  });
  const body = (await res.json().catch(() => ({}))) as Record<string, unknown>;
  if (!res.ok || typeof body.access_token !== 'string')
    throw new Error(`The identity provider did not issue a token (${String(body.error ?? res.status)}).`);
  if (typeof body.id_token === 'string' && claimsOf(body.id_token).nonce !== pending.nonce)
    throw new Error('The ID token does not answer this sign-in (nonce mismatch).');
  const claims = claimsOf(body.access_token);
  const expiresIn = typeof body.expires_in === 'number' ? body.expires_in : 3600;
  const session: Session = {
    accessToken: body.access_token,
    expiresAt: Date.now() + expiresIn * 1000,
    email: String(claims.email ?? claims.sub ?? ''),
    enterprise: String(claims.ent ?? ''),
    role: String(claims.role ?? 'member'),
  };
  sessionStorage.setItem(SESSION, JSON.stringify(session));
  return pending.returnTo.startsWith('/console') ? pending.returnTo : '/console/';
}
