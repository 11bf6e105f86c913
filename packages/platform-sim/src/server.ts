// The simulator's HTTP surface. Shop admin paths live under `/<shop>/admin` (so
// HALLMARK_PLATFORM_ADMIN_URL is `<url>/{shop}/admin`): OAuth authorize/approve/token,
// `api/<version>/graphql.json` and the REST resources, each behind the access token
// header; `/_sim/…` is the control API for tests and the demo (not part of the platform).
import http from 'node:http';
import type { FaultMode, FaultTarget } from './faults.js';
import { runGraphql } from './graphql.js';
import { approve, authorizePage, exchange } from './oauth.js';
import { runRest } from './rest.js';
import type { Simulator } from './sim.js';

export const ACCESS_TOKEN_HEADER = 'x-platform-access-token';

type Json = { status: number; body: unknown };

async function readBody(req: http.IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function parseBody(raw: string, contentType: string | undefined): Record<string, any> {
  if (!raw) return {};
  if (contentType?.includes('application/x-www-form-urlencoded'))
    return Object.fromEntries(new URLSearchParams(raw));
  try {
    return JSON.parse(raw) as Record<string, any>;
  } catch {
    return {};
  }
}

const send = (
  res: http.ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
) => {
  if (typeof body === 'string') res.writeHead(status, headers).end(body);
  else res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
};

export function createSimServer(sim: Simulator): http.Server {
  const sockets = new Set<import('node:net').Socket>();
  const server = http.createServer((req, res) => {
    handle(sim, req, res).catch((err: unknown) => send(res, 500, { errors: (err as Error).message }));
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  server.on('close', () => sockets.forEach((s) => s.destroy()));
  (server as any).dropAll = () => sockets.forEach((s) => s.destroy());
  return server;
}

async function handle(sim: Simulator, req: http.IncomingMessage, res: http.ServerResponse) {
  const url = new URL(req.url ?? '/', `http://${req.headers.host}`);
  const raw = await readBody(req);
  const body = parseBody(raw, req.headers['content-type']);
  const parts = url.pathname.split('/').filter(Boolean).map(decodeURIComponent);
  if (parts[0] === '_sim' && parts[1] === 'app') {
    // Where the demo's installs return: what an app would do next with its setup token.
    const token = url.searchParams.get('token') ?? '';
    const shop = url.searchParams.get('shop') ?? '';
    return send(res, 200, appPage(shop, token), { 'content-type': 'text/html; charset=utf-8' });
  }
  if (parts[0] === '_sim') {
    const r = await control(sim, req.method ?? 'GET', parts.slice(1), body);
    return send(res, r.status, r.body);
  }
  const [shopDomain, admin, area, ...rest] = parts;
  if (!shopDomain || admin !== 'admin') return send(res, 404, { errors: 'Not Found' });
  const base = `http://${req.headers.host}/${shopDomain}/admin`;
  if (area === 'oauth') {
    const step = rest[0];
    if (step === 'authorize' && req.method === 'GET') {
      const r = authorizePage(sim.app, shopDomain, url.searchParams, `${base}/oauth/approve`);
      return send(res, r.status, r.body, r.headers);
    }
    if (step === 'approve' && req.method === 'GET') {
      const r = approve(sim.state, sim.app, shopDomain, url.searchParams, String(req.headers.host));
      return send(res, r.status, r.body, r.headers);
    }
    if (step === 'access_token' && req.method === 'POST') {
      if (await suffer(sim, 'token', res)) return;
      const r = exchange(sim.state, sim.app, shopDomain, body);
      return send(res, r.status, r.body);
    }
    return send(res, 404, { errors: 'Not Found' });
  }
  if (area !== 'api' || rest.length < 2) return send(res, 404, { errors: 'Not Found' });
  const shop = sim.state.shop(shopDomain);
  const token = req.headers[ACCESS_TOKEN_HEADER] as string | undefined;
  if (!shop || !sim.state.tokenValid(shopDomain, token))
    return send(res, 401, {
      errors: '[API] Invalid API key or access token (unrecognized login or wrong password)',
    });
  const [version, ...resource] = rest;
  if (resource.join('/') === 'graphql.json' && req.method === 'POST') {
    if (await suffer(sim, 'graphql', res, String(body.query ?? ''))) return;
    return send(
      res,
      200,
      runGraphql(sim.state, shop, version!, String(body.query ?? ''), body.variables ?? {}),
    );
  }
  if (await suffer(sim, 'rest', res, resource.join('/'))) return;
  const r = runRest(sim.state, shop, req.method ?? 'GET', resource.join('/'), body, url.searchParams);
  return send(res, r.status, r.body);
}

/** Applies an armed fault; true when the request has been answered (or dropped). */
async function suffer(
  sim: Simulator,
  target: FaultTarget,
  res: http.ServerResponse,
  text = '',
): Promise<boolean> {
  const fault = sim.faults.take(target, text);
  if (!fault) return false;
  if (fault.mode === 'errors') {
    // GraphQL reports errors in a 200 body; REST answers them with a 500.
    const body = {
      errors: [
        {
          message: 'Internal error. Looks like something went wrong on our end.',
          extensions: { code: 'INTERNAL_SERVER_ERROR' },
        },
      ],
    };
    send(res, target === 'graphql' ? 200 : 500, body);
  } else if (fault.mode === '5xx') {
    send(res, 503, { errors: 'Service Unavailable' });
  } else {
    await new Promise((r) => setTimeout(r, fault.holdMs));
    res.destroy();
  }
  return true;
}

const esc = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

function appPage(shop: string, token: string): string {
  return (
    `<!doctype html><html><head><meta charset="utf-8"><title>App installed</title></head><body>` +
    `<h1>Installed on ${esc(shop)}</h1><p>Setup token: <code id="token">${esc(token)}</code></p>` +
    `<p>The app now fetches its credentials once: <code>GET /api/platform/integration/credentials?token=…</code></p>` +
    `</body></html>`
  );
}

async function control(
  sim: Simulator,
  method: string,
  path: string[],
  body: Record<string, any>,
): Promise<Json> {
  const [what, shop, sub, id, action] = path;
  try {
    if (what === 'faults' && method === 'POST') {
      sim.faults.set(body.target as FaultTarget, body.mode as FaultMode, {
        times: body.times,
        holdMs: body.holdMs,
      });
      return { status: 204, body: '' };
    }
    if (what === 'faults' && method === 'DELETE') {
      sim.faults.clear();
      return { status: 204, body: '' };
    }
    if (what !== 'shops') return { status: 404, body: { error: 'unknown control path' } };
    if (!shop && method === 'POST')
      return { status: 201, body: sim.view(sim.addShop(String(body.shop)).domain) };
    if (!shop) return { status: 200, body: { shops: [...sim.state.shops.keys()] } };
    if (!sub && method === 'GET') return { status: 200, body: sim.view(shop) };
    if (sub === 'products' && method === 'POST')
      return { status: 201, body: sim.addProduct(shop, body as any) };
    if (sub === 'orders' && !id && method === 'POST') {
      const { order, sent } = await sim.createOrder(shop, body as any);
      const paid = body.paid === false ? [] : await sim.pay(shop, order.id);
      return { status: 201, body: { order, sent: [...sent, ...paid] } };
    }
    if (sub === 'orders' && id && action === 'pay')
      return { status: 200, body: { sent: await sim.pay(shop, Number(id)) } };
    if (sub === 'orders' && id && action === 'cancel')
      return { status: 200, body: { sent: await sim.cancel(shop, Number(id)) } };
    if (sub === 'webhooks' && id && action === 'redeliver')
      return { status: 200, body: { sent: await sim.redeliver(shop, id) } };
    if (sub === 'uninstall' && method === 'POST')
      return { status: 200, body: { sent: await sim.uninstall(shop) } };
    return { status: 404, body: { error: 'unknown control path' } };
  } catch (err) {
    return { status: 400, body: { error: (err as Error).message } };
  }
}
