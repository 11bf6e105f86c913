// Gateway costs, in one run:
//  1. one gateway → gRPC → service round trip (GET an API key: auth from warm cache, one
//     gRPC call, one indexed read) against a bare Fastify handler in this process;
//  2. authentication + rate limiting: the same trivial handler mounted public and behind
//     API-key auth on an in-process gateway wired to the real keys service;
//  3. p99 of a warm-cache key verification.
import { startGateway } from '@hallmark/gateway/gateway';
import { loadGatewayConfig } from '@hallmark/gateway/config';
import { KeyVerifier } from '@hallmark/gateway/auth/key-verifier';
import { startTestStack } from '@hallmark/e2e';
import { createGrpcClient, sha256Hex } from '@hallmark/kit';
import { KeysServiceClient } from '@hallmark/proto/keys/v1/keys';
import Fastify from 'fastify';
import { load, percentile, table } from './lib.js';

export async function benchGateway(): Promise<void> {
  const stack = await startTestStack({ logLevel: 'warn' });
  try {
    const token = await stack.token();
    const created = await stack.call('POST', '/api/v1/api-keys', {
      auth: token,
      body: { name: 'bench', type: 'production', permissions: ['admin.*'], rateLimit: 100_000 },
    });
    if (created.status !== 201) throw new Error(`could not create a bench key: ${created.text}`);
    const key: string = created.body.key;
    const auth = { authorization: `Bearer ${key}` };

    const bare = Fastify();
    bare.get('/x', async () => ({ ok: true }));
    const bareUrl = await bare.listen({ port: 0, host: '127.0.0.1' });

    // In-process gateway with two bench routes doing identical (trivial) work.
    const config = loadGatewayConfig({ ...stack.env, HALLMARK_PORT: '0', LOG_LEVEL: 'warn' });
    const gw = await startGateway(config, {
      extraRoutes: (app) => {
        app.get('/bench/public', { config: { auth: 'public' } }, async () => ({ ok: true }));
        app.get('/bench/auth', { config: { auth: 'key', scope: 'transactions.read' } }, async () => ({
          ok: true,
        }));
      },
    });

    const rows = [
      await load('bare Fastify handler (baseline)', `${bareUrl}/x`),
      await load(
        'gateway → gRPC keys.GetKey → PostgreSQL',
        `${stack.gatewayUrl}/api/v1/api-keys/${created.body.id}`,
        { headers: auth },
      ),
      await load('gateway /healthz (no downstream call)', `${stack.gatewayUrl}/healthz`),
      await load('in-process gateway, public route', `${gw.url}/bench/public`),
      await load('in-process gateway, API key + rate limit', `${gw.url}/bench/auth`, { headers: auth }),
    ];
    table(rows, rows[0]!);
    const [, , , pub, authed] = rows;
    console.log(
      `\nauthentication + rate limiting cost: ${((1 - authed!.rps / pub!.rps) * 100).toFixed(1)}% of throughput (goal ≤ 10%)`,
    );

    // Warm-cache verification latency, measured call by call.
    const keys = createGrpcClient(KeysServiceClient, stack.env.HALLMARK_KEYS_ADDR!);
    const verifier = new KeyVerifier(keys.api, 60_000);
    await verifier.verify(key);
    const samples: number[] = [];
    for (let i = 0; i < 100_000; i++) {
      const t = process.hrtime.bigint();
      await verifier.verify(key);
      samples.push(Number(process.hrtime.bigint() - t) / 1000);
    }
    samples.sort((a, b) => a - b);
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < 100_000; i++) sha256Hex(key);
    const hashUs = Number(process.hrtime.bigint() - t0) / 1000 / 100_000;
    console.log(
      `key verification, warm cache: p50 ${percentile(samples, 50).toFixed(2)} µs, p99 ${percentile(samples, 99).toFixed(2)} µs ` +
        `(baseline: one SHA-256 of the key ${hashUs.toFixed(2)} µs)`,
    );
    keys.close();
    await gw.close();
    await bare.close();
  } finally {
    await stack.close();
  }
}
