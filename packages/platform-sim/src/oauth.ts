// The install flow as the platform runs it: the authorize page the merchant approves, the
// redirect back to the app with `code`, `host`, `shop`, `state`, `timestamp` and `hmac`, and
// the single-use code → access token exchange authenticated by the app key and secret.
import { signOAuthQuery } from './signing.js';
import type { SimState } from './state.js';

export interface AppCredentials {
  apiKey: string;
  apiSecret: string;
}

const esc = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

export type Reply = { status: number; headers?: Record<string, string>; body: string };

const page = (status: number, title: string, inner: string): Reply => ({
  status,
  headers: { 'content-type': 'text/html; charset=utf-8' },
  body: `<!doctype html><html><head><meta charset="utf-8"><title>${esc(title)}</title></head><body><h1>${esc(title)}</h1>${inner}</body></html>`,
});

/** GET <admin>/oauth/authorize: the approval page (or an error page for a bad request). */
export function authorizePage(
  app: AppCredentials,
  shop: string,
  q: URLSearchParams,
  approveBase: string,
): Reply {
  if (q.get('client_id') !== app.apiKey)
    return page(400, 'Oauth error invalid_request', '<p>The client_id is invalid.</p>');
  const redirect = q.get('redirect_uri') ?? '';
  if (!/^https?:\/\//.test(redirect))
    return page(400, 'Oauth error invalid_request', '<p>The redirect_uri is missing or invalid.</p>');
  const approve = `${approveBase}?${q.toString()}`;
  return page(
    200,
    `Install app on ${shop}`,
    `<p>The app asks for: <code>${esc(q.get('scope') ?? '')}</code></p>` +
      `<p><a id="approve" href="${esc(approve)}">Install app</a></p>`,
  );
}

/** GET <admin>/oauth/approve: the merchant said yes; redirect to the app with a signed query. */
export function approve(
  state: SimState,
  app: AppCredentials,
  shop: string,
  q: URLSearchParams,
  adminHost: string,
): Reply {
  const redirect = q.get('redirect_uri') ?? '';
  if (q.get('client_id') !== app.apiKey || !/^https?:\/\//.test(redirect))
    return page(400, 'Oauth error invalid_request', '<p>Bad install request.</p>');
  state.addShop(shop);
  const params: Record<string, string> = {
    code: state.issueCode(shop, q.get('scope') ?? ''),
    host: Buffer.from(`${adminHost}/store/${shop.split('.')[0]}`).toString('base64url'),
    shop,
    state: q.get('state') ?? '',
    timestamp: String(Math.floor(Date.now() / 1000)),
  };
  params.hmac = signOAuthQuery(params, app.apiSecret);
  const url = new URL(redirect);
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  return { status: 302, headers: { location: url.toString() }, body: '' };
}

/** POST <admin>/oauth/access_token with {client_id, client_secret, code}. */
export function exchange(
  state: SimState,
  app: AppCredentials,
  shop: string,
  body: Record<string, unknown>,
): { status: number; body: unknown } {
  if (body.client_id !== app.apiKey || body.client_secret !== app.apiSecret)
    return {
      status: 400,
      body: { error: 'invalid_client', error_description: 'Client credentials are invalid' },
    };
  const code = String(body.code ?? '');
  const grant = state.codes.get(code);
  state.codes.delete(code); // single use, even when refused below
  if (!grant || grant.shop !== shop || grant.expiresAt < Date.now())
    return {
      status: 400,
      body: {
        error: 'invalid_request',
        error_description: 'The authorization code was not found or was already used',
      },
    };
  const token = state.issueToken(state.addShop(shop), grant.scope);
  return { status: 200, body: { access_token: token, scope: grant.scope } };
}
