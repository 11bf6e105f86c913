// Third parties of the run as local HTTPS servers with their own CA (NODE_EXTRA_CA_CERTS):
// webhook endpoints that sometimes answer 5xx or hang (seeded), and the image host bulk
// items point at. Each delivery's signature is checked as a receiver would.
import { hmacSha256 } from '@hallmark/kit/crypto';
import { createServer, type Server } from 'node:https';
import { png } from '../bulk.js';
import type { WebhookReceipt } from './history.js';
import type { Rng } from './prng.js';
import { localTls } from '../tls.js';

export interface Sinks {
  url: string;
  caFile: string;
  /** Registers where endpoint `endpointId` receives and the secret it verifies with. */
  route(pathName: string, endpointId: string, secret: string): void;
  /** Flaky (5xx, hangs) while true; always 200 once the load stopped. */
  flaky: boolean;
  receipts: WebhookReceipt[];
  close(): Promise<void>;
}

/** The Stripe-style header: t=<unix>,v1=<hex HMAC(secret, "t.body")> (notify signing.ts). */
export function signatureValid(header: string | undefined, body: string, secret: string): boolean {
  if (!header) return false;
  const parts = header.split(',');
  const t = parts.find((p) => p.startsWith('t='))?.slice(2);
  if (!t) return false;
  const want = hmacSha256(secret, `${t}.${body}`, 'hex');
  return parts.some((p) => p === `v1=${want}`);
}

export async function startSinks(dir: string, rng: Rng): Promise<Sinks> {
  const { key, cert, caFile } = await localTls(dir, 'hallmark-chaos-sinks');
  const routes = new Map<string, { endpointId: string; secret: string }>();
  const receipts: WebhookReceipt[] = [];
  const sinks = { flaky: true } as Sinks;
  const server: Server = createServer({ key, cert }, (req, res) => {
    const url = req.url ?? '';
    if (url.startsWith('/img/')) {
      res.writeHead(200, { 'content-type': 'image/png' }).end(png(url));
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const route = routes.get(url);
      if (!route) return void res.writeHead(404).end();
      const body = Buffer.concat(chunks).toString('utf8');
      const eventId = String(req.headers['webhook-id'] ?? '');
      const valid = signatureValid(
        req.headers['x-service-signature'] as string | undefined,
        body,
        route.secret,
      );
      const draw = sinks.flaky ? rng.next() : 1;
      const record = (answered: number) =>
        receipts.push({ endpointId: route.endpointId, eventId, answered, signatureValid: valid });
      if (draw < 0.15) {
        record(503);
        res.writeHead(503).end();
      } else if (draw < 0.2) {
        // A hang: no answer for a while, then the connection drops (the sender sees an error).
        record(0);
        setTimeout(() => req.socket.destroy(), 4_000).unref();
      } else {
        record(200);
        res.writeHead(200).end('ok');
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.address() as { port: number }).port;
  return Object.assign(sinks, {
    url: `https://127.0.0.1:${port}`,
    caFile,
    receipts,
    route: (p: string, endpointId: string, secret: string) => void routes.set(p, { endpointId, secret }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}
