// Public certificate reads, in one run on one database: `GET /api/certificate/public/:id` of a
// certificate minted on anvil through the gateway (gateway → gRPC GetPublicCertificate →
// certificates service → PostgreSQL) against a bare Fastify + `pg` handler doing the same two
// queries (the certificate row, its provenance) and answering the same JSON shape (goal ≥ 0.5×).
//
// The public route is rate limited per client IP (300/min): one load generator on one IP gets
// 300 answers a minute and 429s after, which measures the limiter, not the route. So:
//  - the real gateway process is loaded as any single client would load it, and its 2xx rate
//    and 429 count are printed (the limiter working as designed);
//  - the throughput figure comes from an in-process gateway (`startGateway` with the stack's
//    env: the same plugins, clients and route) whose bench route forwards each request to the
//    real `/api/certificate/public/:id` route with `inject`, from a distinct client address
//    each time (10.0.x.y, 65,536 of them, so no address is seen twice in a minute): the
//    limiter runs and consumes for every request but never refuses. The forwarding adds an
//    injected request on top of the outer HTTP request, so the ratio is, if anything, low.
import { startTestStack } from '@hallmark/e2e';
import { startGateway } from '@hallmark/gateway/gateway';
import { loadGatewayConfig } from '@hallmark/gateway/config';
import { createGrpcClient, newId, serviceDatabaseUrl } from '@hallmark/kit';
import { CertificatesServiceClient } from '@hallmark/proto/certificates/v1/certificates';
import Fastify from 'fastify';
import pg from 'pg';
import { load, table } from './lib.js';

interface CertRow {
  id: string;
  name: string;
  image_url: string | null;
  metadata: Record<string, unknown>;
  token_id: string | null;
  status: string;
  transaction_hash: string | null;
  block_number: string | null;
}

interface ProvRow {
  kind: string;
  actor: string | null;
  from_address: string | null;
  to_address: string | null;
  transaction_hash: string | null;
  block_number: string | null;
  at: Date;
}

export async function benchPublicRead(): Promise<void> {
  const stack = await startTestStack({ anvil: true, logLevel: 'warn' });
  const certificates = createGrpcClient(CertificatesServiceClient, stack.env.HALLMARK_CERTIFICATES_ADDR!);
  try {
    const res = await certificates.api.mintBatch({
      principal: {
        enterprise_id: newId('enterprise'),
        livemode: true,
        actor_id: newId('apiKey'),
        actor_type: 'api_key',
        scopes: [],
      },
      idempotency_key: 'bench-public-read',
      holder_address: '0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc',
      items: [
        {
          name: 'Bench Watch',
          image_url: 'https://img.hallmark.test/bench.png',
          metadata_json: JSON.stringify({ artist: 'Atelier Hallmark', category: 'watches' }),
        },
      ],
    });
    const id = res.certificates[0]!.id;
    const path = `/api/certificate/public/${id}`;
    for (let i = 0; ; i++) {
      const r = await fetch(`${stack.gatewayUrl}${path}`);
      if (r.ok && ((await r.json()) as { status: string }).status === 'minted') break;
      if (i > 300) throw new Error('the bench certificate was not minted');
      await new Promise((done) => setTimeout(done, 100));
    }

    // Baseline: bare Fastify + pg, the same queries on the same database, the same shape.
    const db = new pg.Pool({
      connectionString: serviceDatabaseUrl(stack.postgres.url, `${stack.prefix}_certificates`),
      max: 10,
    });
    const bare = Fastify();
    bare.get<{ Params: { id: string } }>('/api/certificate/public/:id', async (request, reply) => {
      const { rows } = await db.query<CertRow>('SELECT * FROM certificates WHERE id = $1', [
        request.params.id,
      ]);
      const c = rows[0];
      if (!c) return reply.status(404).send({ success: false });
      const { rows: prov } = await db.query<ProvRow>(
        'SELECT * FROM provenance WHERE certificate_id = ANY($1::text[]) ORDER BY seq',
        [[c.id]],
      );
      return {
        id: c.id,
        name: c.name,
        imageUrl: c.image_url,
        metadata: c.token_id === null ? c.metadata : { ...c.metadata, tokenId: Number(c.token_id) },
        provenance: prov.map((p) => ({
          kind: p.kind,
          actor: p.actor,
          from: p.from_address,
          to: p.to_address,
          transactionHash: p.transaction_hash,
          blockNumber: p.block_number === null ? null : Number(p.block_number),
          at: p.at.toISOString(),
        })),
        status: c.status,
        burned: c.status === 'burned',
        tokenId: c.token_id === null ? null : Number(c.token_id),
        transactionHash: c.transaction_hash,
        blockNumber: c.block_number === null ? null : Number(c.block_number),
      };
    });
    const bareUrl = await bare.listen({ port: 0, host: '127.0.0.1' });

    // In-process gateway: the real route, reached with a distinct client address per request.
    let n = 0;
    const config = loadGatewayConfig({ ...stack.env, HALLMARK_PORT: '0', LOG_LEVEL: 'warn' });
    const gw = await startGateway(config, {
      extraRoutes: (app) => {
        app.get<{ Params: { id: string } }>(
          '/bench/public/:id',
          { config: { auth: 'public' } },
          async (request, reply) => {
            const i = n++ % 65_536;
            const inner = await app.inject({
              method: 'GET',
              url: `/api/certificate/public/${request.params.id}`,
              remoteAddress: `10.0.${i >> 8}.${i & 255}`,
            });
            return reply.status(inner.statusCode).type('application/json').send(inner.body);
          },
        );
      },
    });

    const rows = [
      await load('bare Fastify + pg, same queries (baseline)', `${bareUrl}${path}`),
      await load('gateway → gRPC → certificates → PostgreSQL', `${gw.url}/bench/public/${id}`),
      await load('gateway process, one client IP (429s)', `${stack.gatewayUrl}${path}`),
    ];
    table(rows, rows[0]!);
    const [base, gateway, limited] = rows;
    const seconds = Number(process.env.BENCH_SECONDS ?? 5);
    console.log(
      `\npublic read through the gateway: ${(gateway!.rps / base!.rps).toFixed(2)}× the bare Fastify + pg handler (goal ≥ 0.5×)`,
    );
    console.log(
      `one client IP on the real gateway: ${limited!.non2xx} of its requests refused with 429, ` +
        `${(limited!.rps - limited!.non2xx / seconds).toFixed(1)} answers/s served ` +
        `(rate group public: 300 per minute per IP, by design; its req/s row counts the 429s)`,
    );
    await gw.close();
    await bare.close();
    await db.end();
  } finally {
    certificates.close();
    await stack.close();
  }
}
