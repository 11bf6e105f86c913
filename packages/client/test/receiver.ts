// A local HTTPS webhook receiver with its own CA (the stack trusts it through
// NODE_EXTRA_CA_CERTS): keeps each POST's raw body and headers, answers 200; GETs are
// answered with a PNG (an image host for bulk orders).
import { writeFileSync } from 'node:fs';
import type { IncomingHttpHeaders } from 'node:http';
import { createServer } from 'node:https';
import path from 'node:path';
import { generate } from 'selfsigned';

export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

const PNG_1X1 = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);

export type Receiver = Awaited<ReturnType<typeof startReceiver>>;

export async function startReceiver(dir: string) {
  const pems = await generate([{ name: 'commonName', value: 'hallmark-test-receiver' }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    notAfterDate: new Date(Date.now() + 24 * 3600_000),
    extensions: [
      { name: 'basicConstraints', cA: true },
      { name: 'keyUsage', digitalSignature: true, keyCertSign: true },
      { name: 'extKeyUsage', serverAuth: true },
      { name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }] },
    ],
  });
  const caFile = path.join(dir, 'receiver-ca.pem');
  writeFileSync(caFile, pems.cert);
  const received: Received[] = [];
  const waiters: (() => void)[] = [];
  const server = createServer({ key: pems.private, cert: pems.cert }, (req, res) => {
    if (req.method === 'GET') {
      // Also an image host (bulk order forms name HTTPS image URLs): a 1×1 PNG per path.
      res
        .writeHead(200, { 'content-type': 'image/png' })
        .end(Buffer.concat([PNG_1X1, Buffer.from(`\0${req.url}`)]));
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks) });
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      waiters.splice(0).forEach((w) => w());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.address() as { port: number }).port;
  return {
    url: `https://127.0.0.1:${port}`,
    caFile,
    received,
    /** Resolves with the first request `match` accepts (waiting up to `timeoutMs`). */
    async waitFor(match: (r: Received) => boolean, timeoutMs = 20_000): Promise<Received> {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const hit = received.find(match);
        if (hit) return hit;
        if (Date.now() > deadline) throw new Error(`no matching webhook within ${timeoutMs} ms`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 500);
        });
      }
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
