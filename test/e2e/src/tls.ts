// A certificate authority of a test's own for local HTTPS servers (image hosts, webhook sinks,
// a shop's host): a self-signed EC certificate for 127.0.0.1, its PEM written to `caFile` so
// the stack's processes trust it through NODE_EXTRA_CA_CERTS.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { generate } from 'selfsigned';

export interface LocalTls {
  key: string;
  cert: string;
  caFile: string;
}

export async function localTls(dir: string, name: string): Promise<LocalTls> {
  const pems = await generate([{ name: 'commonName', value: name }], {
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
  const caFile = path.join(dir, `${name}-ca.pem`);
  writeFileSync(caFile, pems.cert);
  return { key: pems.private, cert: pems.cert, caFile };
}
