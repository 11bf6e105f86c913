// Restate request identity on a workflow endpoint (kit withRestateIdentity, used by bulk,
// certificates and platform): with HALLMARK_RESTATE_IDENTITY_KEYS set, a request that is not
// signed by the Restate server's key is refused before any handler runs; unset, it is served.
import { afterEach, describe, expect, it } from '@jest/globals';
import { withRestateIdentity } from '@hallmark/kit';
import { h2Status } from '@hallmark/kit/testing';
import * as restate from '@restatedev/restate-sdk';
import { generateKeyPairSync } from 'node:crypto';
import http2 from 'node:http2';

const ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
function base58(bytes: Uint8Array): string {
  let n = BigInt(`0x${Buffer.from(bytes).toString('hex')}`);
  let out = '';
  while (n > 0n) {
    out = ALPHABET[Number(n % 58n)]! + out;
    n /= 58n;
  }
  for (const b of bytes)
    if (b === 0) out = `1${out}`;
    else break;
  return out;
}

/** A Restate v1 identity public key: `publickeyv1_` + base58 of the raw Ed25519 key. */
function identityKey(): string {
  const { publicKey } = generateKeyPairSync('ed25519');
  const raw = publicKey.export({ format: 'der', type: 'spki' }).subarray(-32);
  return `publickeyv1_${base58(raw)}`;
}

const probe = restate.service({ name: 'probe', handlers: { ping: async () => 'pong' } });
const servers: http2.Http2Server[] = [];
afterEach(async () => {
  delete process.env.HALLMARK_RESTATE_IDENTITY_KEYS;
  for (const s of servers.splice(0)) await new Promise((r) => s.close(r));
});

async function discover(): Promise<number> {
  const server = http2.createServer(withRestateIdentity(restate.endpoint().bind(probe)).http2Handler());
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return h2Status(`http://127.0.0.1:${(server.address() as { port: number }).port}`, '/discover', {
    accept: 'application/vnd.restate.endpointmanifest.v3+json',
  });
}

describe('Restate request identity', () => {
  it('an endpoint with HALLMARK_RESTATE_IDENTITY_KEYS refuses an unsigned request; without keys it serves it', async () => {
    expect(await discover()).toBe(200);
    process.env.HALLMARK_RESTATE_IDENTITY_KEYS = identityKey();
    expect(await discover()).toBe(401);
  });

  it('refuses a malformed key at start', () => {
    process.env.HALLMARK_RESTATE_IDENTITY_KEYS = 'not-a-key';
    expect(() => withRestateIdentity(restate.endpoint())).toThrow(/publickeyv1_/);
  });
});
