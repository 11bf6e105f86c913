// Test wiring for the webhooks half: a fresh database per test file, a local HTTPS receiver
// with a self-signed certificate made at test time, and an independent verifier of both
// signature schemes (written from the specs, not from src/).
import { newId, type HallmarkError } from '@hallmark/kit';
import type { Principal } from '@hallmark/proto/common/v1/common';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { generate } from 'selfsigned';

export const TEST_ENCRYPTION_KEY = '0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef';

/** A user of `enterpriseId` (default: a fresh enterprise) in `livemode`, as the gateway sends it. */
export const principal = (enterpriseId: string = newId('enterprise'), livemode = true): Principal => ({
  enterprise_id: enterpriseId,
  livemode,
  actor_id: 'user_t',
  actor_type: 'user',
  scopes: ['admin.*'],
});

/** What a call was refused with (null when it succeeded). */
export const refusal = (p: Promise<unknown>) =>
  p.then(
    () => null,
    (e: HallmarkError) => ({ code: e.code, param: e.param, message: e.message, http: e.httpStatus }),
  );

export interface Received {
  path: string;
  headers: Record<string, string>;
  body: string;
  at: number;
}

export interface Receiver {
  url: string;
  ca: string;
  received: Received[];
  /** Decides each answer (default 200); may be async (a slow receiver). */
  respond: (r: Received) => number | Promise<number>;
  close(): Promise<void>;
}

export async function makeCertificate(): Promise<{ key: string; cert: string }> {
  const pems = await generate([{ name: 'commonName', value: 'hallmark-test-receiver' }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    notAfterDate: new Date(Date.now() + 24 * 3600_000),
    extensions: [
      { name: 'basicConstraints', cA: true },
      { name: 'keyUsage', digitalSignature: true, keyCertSign: true },
      { name: 'extKeyUsage', serverAuth: true },
      {
        name: 'subjectAltName',
        altNames: [
          { type: 7, ip: '127.0.0.1' },
          { type: 2, value: 'localhost' },
        ],
      },
    ],
  });
  return { key: pems.private, cert: pems.cert };
}

export async function startReceiver(tls: { key: string; cert: string }, port = 0): Promise<Receiver> {
  const received: Received[] = [];
  const receiver: Receiver = {
    url: '',
    ca: tls.cert,
    received,
    respond: () => 200,
    close: async () => undefined,
  };
  const server: Server = createServer({ key: tls.key, cert: tls.cert }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r: Received = {
        path: req.url ?? '',
        headers: Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)])),
        body: Buffer.concat(chunks).toString('utf8'),
        at: Date.now(),
      };
      received.push(r);
      void Promise.resolve(receiver.respond(r)).then((status) => {
        res.writeHead(status, { 'content-type': 'text/plain' }).end('ok');
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  receiver.url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  receiver.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return receiver;
}

const safeEqual = (a: string, b: string) =>
  a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

/**
 * Stripe-style verifier (spec › Authentication 10): parse `t=…,v1=…[,v1=…]`, recompute
 * HMAC-SHA256(secret, `${t}.${body}`) hex, compare in constant time, 5-minute tolerance.
 */
export function verifyServiceSignature(
  header: string,
  body: string,
  secret: string,
  nowS = Date.now() / 1000,
) {
  const parts = header.split(',').map((p) => p.split('='));
  const t = parts.find(([k]) => k === 't')?.[1];
  const sigs = parts.filter(([k]) => k === 'v1').map(([, v]) => v ?? '');
  if (!t || Math.abs(nowS - Number(t)) > 300) return false;
  const expected = createHmac('sha256', secret).update(`${t}.${body}`).digest('hex');
  return sigs.some((s) => safeEqual(s, expected));
}

/**
 * Standard Webhooks verifier: key = base64-decoded part after `whsec_`; signed content
 * `${webhook-id}.${webhook-timestamp}.${body}`; header is space-separated `v1,<base64>`.
 */
export function verifyStandardWebhook(headers: Record<string, string>, body: string, secret: string) {
  const id = headers['webhook-id'];
  const ts = headers['webhook-timestamp'];
  const sigHeader = headers['webhook-signature'];
  if (!id || !ts || !sigHeader || Math.abs(Date.now() / 1000 - Number(ts)) > 300) return false;
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expected = createHmac('sha256', key).update(`${id}.${ts}.${body}`).digest('base64');
  return sigHeader.split(' ').some((s) => {
    const [version, sig] = s.split(',');
    return version === 'v1' && !!sig && safeEqual(sig, expected);
  });
}

/** Enterprise verifier (spec › Authentication 11): hex HMAC-SHA256 of the body. */
export function verifyEnterpriseSignature(header: string, body: string, secret: string) {
  return safeEqual(header, createHmac('sha256', secret).update(body).digest('hex'));
}
