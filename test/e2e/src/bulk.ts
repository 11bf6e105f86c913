// Helpers for bulk-mint tests: order bodies, Idempotency-Keys, polling a job to its end, and
// reading what the certificates service recorded.
import { randomBase62 } from '@hallmark/kit';
import { rmSync } from 'node:fs';
import { createServer } from 'node:https';
import pg from 'pg';
import yauzl from 'yauzl';
import yazl from 'yazl';
import type { TestStack } from './index.js';
import { localTls } from './tls.js';

export const SHOP = 'hallmark-demo.myshopify.com';

export function orderBody(
  units: number,
  opts: {
    orderId?: string;
    lineItems?: { lineItemGid: string; quantity: number }[];
    metadata?: unknown[];
  } = {},
) {
  const orderId = opts.orderId ?? `gid://shopify/Order/${Date.now()}${Math.floor(Math.random() * 1000)}`;
  const lineItems = opts.lineItems ?? [{ lineItemGid: 'gid://shopify/LineItem/1001', quantity: units }];
  return {
    schemaVersion: '2025-09-01',
    metadata: opts.metadata ?? [
      {
        name: 'Chronograph No. 7',
        description: 'Hand-assembled chronograph',
        imageUrl: 'https://images.example.com/chrono-7.png',
        sku: 'CHR-7',
        serialNumber: 'SN-0007',
      },
    ],
    externalContext: {
      source: 'shopify',
      shop: SHOP,
      orderId,
      orderNumber: '1007',
      lineItems,
      customer: { email: 'buyer@example.com', firstName: 'Ada', lastName: 'Lovelace' },
    },
  };
}

export const idempotencyKeyOf = (body: ReturnType<typeof orderBody>) =>
  `${SHOP}#${body.externalContext.orderId}#${body.externalContext.lineItems[0]!.lineItemGid}#${randomBase62(16)}`;

/** Polls GET /api/bulk-mint/:id until the job ends (tolerating a gateway or service restart). */
export async function waitForJob(stack: TestStack, auth: string, jobId: string, timeoutMs = 180_000) {
  const deadline = Date.now() + timeoutMs;
  let last: any;
  while (Date.now() < deadline) {
    // Every voucher (a paginated status answers 1000 at most): `vouchers=all` streams them.
    const res = await stack.call('GET', `/api/bulk-mint/${jobId}?vouchers=all`, { auth }).catch(() => null);
    if (res?.status === 200) {
      last = res.body.job ?? res.body.data;
      if (['completed', 'failed', 'cancelled'].includes(last.status)) return last;
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`job ${jobId} did not finish: ${JSON.stringify(last)?.slice(0, 500)}`);
}

/** A query on one service's database of the stack. */
export async function serviceQuery<T extends pg.QueryResultRow>(
  stack: TestStack,
  service: string,
  sql: string,
  params: unknown[] = [],
): Promise<T[]> {
  const url = new URL(stack.postgres.url);
  url.pathname = `/${stack.prefix}_${service}`;
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  try {
    return (await client.query<T>(sql, params)).rows;
  } finally {
    await client.end();
  }
}

// A 1×1 PNG; bytes after IEND make each image distinct without breaking it.
const PNG_1X1 = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);
export const png = (tag: string) => Buffer.concat([PNG_1X1, Buffer.from(`\0${tag}`)]);

export async function zipOf(entries: { name: string; data: Buffer }[]): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  for (const e of entries) zip.addBuffer(e.data, e.name, { compress: false });
  zip.end();
  const chunks: Buffer[] = [];
  for await (const c of zip.outputStream as AsyncIterable<Buffer>) chunks.push(c);
  return Buffer.concat(chunks);
}

/** Reads a ZIP's entry names (the download's contents). */
export async function zipNames(zip: Buffer): Promise<string[]> {
  const file = await new Promise<yauzl.ZipFile>((resolve, reject) =>
    yauzl.fromBuffer(zip, { lazyEntries: false }, (err, z) => (err ? reject(err) : resolve(z!))),
  );
  const names: string[] = [];
  await new Promise<void>((resolve, reject) => {
    file.on('entry', (e: yauzl.Entry) => names.push(e.fileName));
    file.on('end', () => resolve());
    file.on('error', reject);
  });
  return names;
}

export interface ImageServer {
  url: string;
  caFile: string;
  /** Paths answered 404 until removed. */
  missing: Set<string>;
  requests: string[];
  close(): Promise<void>;
}

/**
 * An HTTPS image host on 127.0.0.1 with its own CA (written to `caFile` in `dir` for
 * NODE_EXTRA_CA_CERTS): bulk fetches image URLs from it through the outbound guard. `dir` is
 * removed at close.
 */
/** `body` answers a path (default: a tiny PNG tagged with it, distinct per URL). */
export async function startImageServer(
  dir: string,
  body: (urlPath: string) => Buffer = png,
): Promise<ImageServer> {
  const { key, cert, caFile } = await localTls(dir, 'hallmark-test-images');
  const missing = new Set<string>();
  const requests: string[] = [];
  const server = createServer({ key, cert }, (req, res) => {
    requests.push(req.url ?? '');
    if (missing.has(req.url ?? '')) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'image/png' }).end(body(req.url ?? ''));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.address() as { port: number }).port;
  return {
    url: `https://127.0.0.1:${port}`,
    caFile,
    missing,
    requests,
    // The directory is the server's (its CA and key; a caller's files beside them go too).
    close: () =>
      new Promise<void>((resolve) => server.close(() => resolve())).then(() =>
        rmSync(dir, { recursive: true, force: true }),
      ),
  };
}

/** A multipart body for the CSV form. */
export function csvForm(csv: string | Buffer, zip?: Buffer, fields: Record<string, string> = {}): FormData {
  const form = new FormData();
  form.append('metadata', new Blob([csv], { type: 'text/csv' }), 'products.csv');
  if (zip) form.append('images', new Blob([zip], { type: 'application/zip' }), 'images.zip');
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  return form;
}
