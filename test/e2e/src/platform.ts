// Helpers for platform-integration tests: an HTTPS host on 127.0.0.1 with its own CA that
// serves product images and records the enterprise webhooks it receives, and the install
// walked like a merchant's browser (authorize → the platform's approval → callback).
import { createHmac } from 'node:crypto';
import { createServer } from 'node:https';
import { png } from './bulk.js';
import type { TestStack } from './index.js';
import { localTls } from './tls.js';

export interface HttpsHost {
  url: string;
  caFile: string;
  hooks: { headers: Record<string, string | string[] | undefined>; body: string }[];
  close(): Promise<void>;
}

export async function startHttpsHost(dir: string): Promise<HttpsHost> {
  const { key, cert, caFile } = await localTls(dir, 'hallmark-test-host');
  const hooks: HttpsHost['hooks'] = [];
  const server = createServer({ key, cert }, (req, res) => {
    if (req.method === 'POST') {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        hooks.push({ headers: req.headers, body });
        res.writeHead(200).end('ok');
      });
      return;
    }
    res.writeHead(200, { 'content-type': 'image/png' }).end(png(req.url ?? ''));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    url: `https://127.0.0.1:${(server.address() as { port: number }).port}`,
    caFile,
    hooks,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** The approval link on the platform's authorize page. */
export async function approvalLink(authUrl: string): Promise<string> {
  const page = await (await fetch(authUrl)).text();
  const href = /id="approve" href="([^"]+)"/.exec(page)?.[1];
  if (!href) throw new Error(`no approval link on ${authUrl}`);
  return href.replace(/&amp;/g, '&');
}

/** authorize → approve at the platform → the signed callback URL (not yet followed). */
export async function signedCallback(stack: TestStack, session: string, shop: string): Promise<string> {
  const res = await stack.call('POST', '/api/platform/auth/authorize', { auth: session, body: { shop } });
  if (res.status !== 200) throw new Error(`authorize answered ${res.status}: ${res.text}`);
  const approved = await fetch(await approvalLink(res.body.authUrl), { redirect: 'manual' });
  return approved.headers.get('location')!;
}

export const webhookSignature = (body: string, secret: string) =>
  createHmac('sha256', secret).update(body).digest('hex');

export async function until<T>(
  what: string,
  fn: () => Promise<T | null | undefined | false>,
  timeoutMs = 120_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn().catch(() => null);
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 300));
  }
}
