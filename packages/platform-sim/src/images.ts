// An HTTPS host for the simulated shop's product images (the platform's CDN), with its own
// CA written to a file for NODE_EXTRA_CA_CERTS: bulk fetches and hashes a certificate's image
// over HTTPS before minting, so the demo's products need images it can really fetch.
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:https';
import path from 'node:path';
import { generate } from 'selfsigned';

// A 1×1 PNG; the bytes after IEND make each path's image distinct without breaking it.
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);

export interface ImageHost {
  url: string;
  caFile: string;
  close(): Promise<void>;
}

export async function startImageHost(opts: { dir: string; port?: number }): Promise<ImageHost> {
  const pems = await generate([{ name: 'commonName', value: 'hallmark-platform-sim-cdn' }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    notAfterDate: new Date(Date.now() + 30 * 24 * 3600_000),
    extensions: [
      { name: 'basicConstraints', cA: true },
      { name: 'keyUsage', digitalSignature: true, keyCertSign: true },
      { name: 'extKeyUsage', serverAuth: true },
      { name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }] },
    ],
  });
  const caFile = path.join(opts.dir, 'platform-sim-ca.pem');
  writeFileSync(caFile, pems.cert);
  const server = createServer({ key: pems.private, cert: pems.cert }, (req, res) => {
    res
      .writeHead(200, { 'content-type': 'image/png', 'cache-control': 'public, max-age=3600' })
      .end(Buffer.concat([PNG, Buffer.from(`\0${req.url ?? ''}`)]));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', () => resolve());
  });
  return {
    url: `https://127.0.0.1:${(server.address() as { port: number }).port}`,
    caFile,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
