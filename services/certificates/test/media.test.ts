// Archived certificate images: the pure rules (magic bytes, GPS in EXIF, ranges, fingerprint),
// then the media service on a real PostgreSQL with each blob backend — a directory, and the S3
// API against a local S3-compatible server (s3rver) — and URLs fetched from a real local HTTPS
// server through the outbound guard; then the backfill of hot-linked certificates.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  createGuardedAgent,
  createLogger,
  HallmarkError,
  OutboundGuard,
  openDatabase,
  type Logger,
  type Pool,
} from '@hallmark/kit';
import {
  closeTestDatabase,
  planAtScale,
  TEST_DATABASE_SERVER,
  uniqueDatabaseName,
} from '@hallmark/kit/testing';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createServer, type Server } from 'node:https';
import {
  createServer as createTcpServer,
  type AddressInfo,
  type Server as TcpServer,
  type Socket,
} from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { generate } from 'selfsigned';
import sharp from 'sharp';
import { exifHasGps, fingerprint, parseRange, sniffImageType } from '../src/media/domain/image.js';
import { COULD_NOT_FETCH, couldNotFetchMessage, fetchImageBytes } from '../src/media/fetch.js';
import { FsStorage } from '../src/media/fs-storage.js';
import { S3Storage } from '../src/media/s3-storage.js';
import { MediaService } from '../src/media/service.js';
import type { BlobStorage } from '../src/media/storage.js';
import { MediaStore } from '../src/media/store.js';
import { startLocalS3, type LocalS3 } from './s3-server.js';

createLogger('media-test', 'silent');
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

const png = (color: string, width = 64, height = 48) =>
  sharp({ create: { width, height, channels: 3, background: color } })
    .png()
    .toBuffer();
/** A JPEG taken "at" 48°51'N, lying on its side (EXIF orientation 6). */
const gpsJpeg = () =>
  sharp({ create: { width: 40, height: 20, channels: 3, background: '#336699' } })
    .jpeg()
    .withMetadata({ orientation: 6 })
    .withExifMerge({ IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '48/1 51/1 0/1' } })
    .toBuffer();

describe('image rules', () => {
  it('tells the type by magic bytes, not by name or header', async () => {
    expect(sniffImageType(await png('#fff'))).toBe('image/png');
    expect(sniffImageType(await gpsJpeg())).toBe('image/jpeg');
    expect(sniffImageType(Buffer.from('RIFF\0\0\0\0WEBPVP8 '))).toBe('image/webp');
    expect(sniffImageType(Buffer.from('GIF89a'))).toBe('image/gif');
    expect(sniffImageType(Buffer.from('<!doctype html><p>png</p>'))).toBeNull();
  });

  it('finds a GPS IFD in EXIF and nothing in EXIF without one', async () => {
    expect(exifHasGps((await sharp(await gpsJpeg()).metadata()).exif)).toBe(true);
    const plain = await sharp(await png('#000'))
      .jpeg()
      .withExif({ IFD0: { Make: 'Test' } })
      .toBuffer();
    expect(exifHasGps((await sharp(plain).metadata()).exif)).toBe(false);
    expect(exifHasGps(undefined)).toBe(false);
  });

  it('reads byte ranges as RFC 9110 says (a-b, a-, -n; beyond the end is unsatisfiable)', () => {
    expect(parseRange('bytes=0-9', 100)).toEqual({ start: 0, end: 9 });
    expect(parseRange('bytes=90-', 100)).toEqual({ start: 90, end: 99 });
    expect(parseRange('bytes=-10', 100)).toEqual({ start: 90, end: 99 });
    expect(parseRange('bytes=50-500', 100)).toEqual({ start: 50, end: 99 });
    expect(parseRange('bytes=100-', 100)).toBe('unsatisfiable');
    expect(parseRange('items=0-1', 100)).toBeNull();
    expect(parseRange(undefined, 100)).toBeNull();
  });

  it('prints a short fingerprint of a hash', () => {
    expect(fingerprint('ab'.repeat(32))).toBe('abab abab … abab abab');
  });
});

let pool: Pool;
let database: string;
let tmp: string;
let s3: LocalS3;
let https: Server;
let base = '';
const served = new Map<string, Buffer>();
let agent: ReturnType<typeof createGuardedAgent>;

beforeAll(async () => {
  database = uniqueDatabaseName('certificates_media');
  pool = await openDatabase({
    serverUrl: TEST_DATABASE_SERVER,
    database,
    migrationsDirs: [path.join(import.meta.dirname, '..', 'migrations')],
    max: 4,
  });
  tmp = mkdtempSync(path.join(os.tmpdir(), 'hallmark-media-'));
  s3 = await startLocalS3(path.join(tmp, 's3'));
  const pems = await generate([{ name: 'commonName', value: 'media-test' }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    notAfterDate: new Date(Date.now() + 3600_000),
    extensions: [
      { name: 'basicConstraints', cA: true },
      { name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }] },
    ],
  });
  https = createServer({ key: pems.private, cert: pems.cert }, (req, res) => {
    const body = served.get(req.url ?? '');
    if (!body) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'image/png' }).end(body);
  });
  await new Promise<void>((resolve) => https.listen(0, '127.0.0.1', resolve));
  base = `https://127.0.0.1:${(https.address() as AddressInfo).port}`;
  agent = createGuardedAgent(new OutboundGuard('127.0.0.1'), { tls: { ca: pems.cert } });
});

afterAll(async () => {
  await agent.close();
  https.closeAllConnections();
  await new Promise((resolve) => https.close(resolve));
  await s3.close();
  await closeTestDatabase(pool, database);
  rmSync(tmp, { recursive: true, force: true });
});

const fetchVia = (dispatcher: ReturnType<typeof createGuardedAgent>) => (url: string) =>
  fetchImageBytes(url, { timeoutMs: 5000, maxBytes: 1024 * 1024, dispatcher });

const backends: [string, () => BlobStorage][] = [
  ['filesystem', () => new FsStorage(path.join(tmp, 'fs'))],
  [
    'S3 (local s3rver)',
    () =>
      new S3Storage({
        bucket: s3.bucket,
        endpoint: s3.endpoint,
        region: 'us-east-1',
        accessKeyId: s3.accessKeyId,
        secretAccessKey: s3.secretAccessKey,
      }),
  ],
];

describe.each(backends)('media service on the %s backend', (_name, makeStorage) => {
  let storage: BlobStorage;
  let media: MediaService;
  beforeAll(() => {
    storage = makeStorage();
    media = new MediaService({ store: new MediaStore(pool), storage, fetch: fetchVia(agent) });
  });

  it('stores the same image once however many times it is archived, keyed by the sha256 of the stored bytes', async () => {
    const before = await storage.count('objects/');
    const bytes = await png(storage.kind === 'fs' ? '#123456' : '#654321');
    const refs = await Promise.all(Array.from({ length: 20 }, () => media.put(bytes)));
    expect(new Set(refs.map((r) => r.sha256))).toEqual(new Set([sha(bytes)]));
    expect(refs[0]).toMatchObject({ contentType: 'image/png', size: bytes.length, width: 64, height: 48 });
    expect(await storage.count('objects/')).toBe(before + 1);
    const read = await media.read(sha(bytes));
    expect(sha(read.bytes)).toBe(sha(bytes));
    expect(await media.storedMatches(sha(bytes))).toBe(true);
  });

  it('strips EXIF GPS and keeps the picture upright (orientation applied)', async () => {
    const ref = await media.put(await gpsJpeg());
    expect(ref).toMatchObject({ contentType: 'image/jpeg', width: 20, height: 40 });
    const stored = (await media.read(ref.sha256)).bytes;
    expect(sha(stored)).toBe(ref.sha256);
    const meta = await sharp(stored).metadata();
    expect(exifHasGps(meta.exif)).toBe(false);
    expect([meta.width, meta.height]).toEqual([20, 40]);
  });

  it('keeps anchored bytes exactly when asked (exact), GPS and all', async () => {
    const original = await gpsJpeg();
    const ref = await media.put(original, { exact: true, aliasId: `med_${storage.kind}old` });
    expect(ref.sha256).toBe(sha(original));
    expect((await media.read(`med_${storage.kind}old`)).media.sha256).toBe(sha(original));
  });

  it('refuses bytes that are not an image whatever they claim (parameter_invalid image)', async () => {
    await expect(media.put(Buffer.from('<!doctype html><p>hi</p>'))).rejects.toMatchObject({
      code: 'parameter_invalid',
      param: 'image',
    });
  });

  it('answers a byte range, and makes each WebP variant once (never wider than the original)', async () => {
    const big = await png('#abcdef', 1600, 900);
    const ref = await media.put(big);
    const part = await media.read(ref.sha256, 0, { start: 10, end: 19 });
    expect(part.bytes).toEqual(big.subarray(10, 20));
    expect(part.total).toBe(big.length);
    const v = await media.read(ref.sha256, 480);
    expect(v.contentType).toBe('image/webp');
    expect((await sharp(v.bytes).metadata()).width).toBe(480);
    const variantsBefore = await storage.count('variants/');
    const again = await media.read(ref.sha256, 480);
    expect(again.bytes).toEqual(v.bytes);
    expect(await storage.count('variants/')).toBe(variantsBefore);
    const small = await media.read((await media.put(await png('#0f0', 100, 50))).sha256, 1024);
    expect((await sharp(small.bytes).metadata()).width).toBe(100);
    await expect(media.read(ref.sha256, 333)).rejects.toMatchObject({ code: 'parameter_invalid' });
    await expect(media.read('0'.repeat(64))).rejects.toMatchObject({ code: 'resource_not_found' });
  });

  it('archives a URL once through the outbound guard; a dead URL or a non-image is a readable error naming image_url, or the name the caller gives', async () => {
    const bytes = await png('#010203');
    served.set(`/${storage.kind}.png`, bytes);
    served.set(`/${storage.kind}.html`, Buffer.from('<html></html>'));
    expect((await media.archiveUrl(`${base}/${storage.kind}.png`)).sha256).toBe(sha(bytes));
    const err = await media.archiveUrl(`${base}/gone.png`).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HallmarkError);
    expect(err).toMatchObject({ param: 'image_url', message: COULD_NOT_FETCH });
    await expect(media.archiveUrl(`${base}/${storage.kind}.html`)).rejects.toMatchObject({
      param: 'image_url',
      message: COULD_NOT_FETCH,
    });
    // Keys archives an issuer's logo under its own field name, passed on to its caller as is.
    await expect(media.archiveUrl(`${base}/gone.png`, 'logoUrl')).rejects.toMatchObject({
      param: 'logoUrl',
      message: couldNotFetchMessage('logoUrl'),
    });
  });
});

describe('outbound guard on image URLs', () => {
  it('refuses a loopback address unless the operator exempts it', async () => {
    const strict = createGuardedAgent(new OutboundGuard(''));
    const media = new MediaService({
      store: new MediaStore(pool),
      storage: new FsStorage(path.join(tmp, 'strict')),
      fetch: fetchVia(strict),
    });
    await expect(media.archiveUrl(`${base}/x.png`)).rejects.toMatchObject({
      param: 'image_url',
      message: expect.stringContaining('address not allowed'),
    });
    await expect(media.archiveUrl('http://example.com/x.png')).rejects.toMatchObject({
      message: 'image_url is not an HTTPS URL',
    });
    await expect(media.archiveUrl('http://example.com/x.png', 'logoUrl')).rejects.toMatchObject({
      param: 'logoUrl',
      message: 'logoUrl is not an HTTPS URL',
    });
    await strict.close();
  });
});

describe('image fetch failures on an allowed host (no port probing)', () => {
  const servers: (TcpServer | Server)[] = [];
  const sockets = new Set<Socket>();
  const listen = async (server: TcpServer | Server) => {
    servers.push(server);
    server.on('connection', (socket: Socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return (server.address() as AddressInfo).port;
  };
  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    for (const s of servers) await new Promise((resolve) => s.close(resolve));
  });

  it('answers one and the same image_url error for a closed port, a reset, plain HTTP, an untrusted or old-TLS server, a hang, a non-resolving host, an HTTP error and a non-image; the cause only in the log', async () => {
    // A port nothing listens on: bound, then closed.
    const closedPort = await listen(createTcpServer());
    await new Promise((resolve) => servers.pop()!.close(resolve));
    const resetPort = await listen(createTcpServer((socket) => socket.resetAndDestroy()));
    const plainPort = await listen(createHttpServer((_req, res) => res.end('hello')));
    const untrusted = await generate([{ name: 'commonName', value: 'untrusted' }], {
      keyType: 'ec',
      curve: 'P-256',
      algorithm: 'sha256',
      notAfterDate: new Date(Date.now() + 3600_000),
      extensions: [{ name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }] }],
    });
    const untrustedPort = await listen(
      createServer({ key: untrusted.private, cert: untrusted.cert }, (_req, res) => res.end()),
    );
    const hangPort = await listen(createTcpServer(() => undefined));
    const logged: Record<string, unknown>[] = [];
    const log = { info: (o: Record<string, unknown>) => logged.push(o) } as unknown as Logger;
    const media = new MediaService({
      store: new MediaStore(pool),
      storage: new FsStorage(path.join(tmp, 'probe')),
      fetch: (url) => fetchImageBytes(url, { timeoutMs: 1500, maxBytes: 1024 * 1024, dispatcher: agent }),
      log,
    });
    served.set('/page.html', Buffer.from('<!doctype html><p>hello</p>'));
    const urls = {
      closed: `https://127.0.0.1:${closedPort}/x.png`,
      reset: `https://127.0.0.1:${resetPort}/x.png`,
      plainHttp: `https://127.0.0.1:${plainPort}/x.png`,
      untrustedTls: `https://127.0.0.1:${untrustedPort}/x.png`,
      hang: `https://127.0.0.1:${hangPort}/x.png`,
      noDns: 'https://no-such-host.invalid/x.png',
      http404: `${base}/missing.png`,
      notImage: `${base}/page.html`,
    };
    const answers: Record<string, unknown> = {};
    for (const [name, url] of Object.entries(urls)) {
      const err = await media.archiveUrl(url).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(HallmarkError);
      const { code, param, message } = err as HallmarkError;
      answers[name] = { code, param, message };
    }
    const expected = { code: 'parameter_invalid', param: 'image_url', message: COULD_NOT_FETCH };
    for (const name of Object.keys(urls)) expect([name, answers[name]]).toEqual([name, expected]);
    expect(new Set(Object.values(answers).map((a) => JSON.stringify(a))).size).toBe(1);
    // The operator still sees what happened, by origin (never the path or query).
    const details = logged.map((l) => String(l.detail));
    expect(details.some((d) => /ECONNREFUSED/.test(d))).toBe(true);
    expect(details.some((d) => /ECONNRESET|UND_ERR_SOCKET|socket/i.test(d))).toBe(true);
    expect(details.some((d) => /timed out/.test(d))).toBe(true);
    expect(details.some((d) => /HTTP 404/.test(d))).toBe(true);
    expect(logged.every((l) => !String(l.origin).includes('/x.png'))).toBe(true);
  }, 30_000);
});

describe('MediaService over gRPC (client and server streams)', () => {
  it('takes an image in chunks under an old alias id, streams it back whole or by range, and says resource_not_found for an unknown key', async () => {
    const { MediaServiceClient } = await import('@hallmark/proto/certificates/v1/media');
    const { createGrpcClient, startGrpcServer } = await import('@hallmark/kit');
    const { mediaSlice } = await import('../src/media/index.js');
    const slice = mediaSlice(
      {
        HALLMARK_MEDIA_BACKEND: 'fs',
        HALLMARK_DATA_DIR: tmp,
        HALLMARK_MEDIA_DIR: path.join(tmp, 'grpc'),
        HALLMARK_MEDIA_S3_REGION: 'us-east-1',
        HALLMARK_MEDIA_S3_PREFIX: '',
        HALLMARK_MEDIA_FETCH_TIMEOUT_MS: 1000,
        HALLMARK_MEDIA_MAX_BYTES: 1024 * 1024,
        HALLMARK_OUTBOUND_ALLOW_HOSTS: '',
        HALLMARK_MEDIA_BACKFILL_INTERVAL_MS: 0,
      },
      pool,
      createLogger('media-grpc', 'silent'),
    );
    const server = await startGrpcServer({
      name: 'media-test',
      address: '127.0.0.1:0',
      services: [slice.binding],
      log: createLogger('media-grpc', 'silent'),
    });
    const client = createGrpcClient(MediaServiceClient, `127.0.0.1:${server.port}`);
    try {
      const big = await sharp({ create: { width: 300, height: 300, channels: 4, background: '#ff000080' } })
        .png({ compressionLevel: 0 })
        .toBuffer();
      expect(big.length).toBeGreaterThan(200_000);
      const chunks = Array.from({ length: Math.ceil(big.length / 65536) }, (_, i) => ({
        alias_id: i === 0 ? 'med_grpcalias' : undefined,
        exact: false,
        data: big.subarray(i * 65536, (i + 1) * 65536),
      }));
      const put = await client.uploads.putMedia(chunks);
      expect(put.media!.sha256).toBe(sha(big));
      const read = async (req: Parameters<typeof client.streams.getMedia>[0]) => {
        const parts: Buffer[] = [];
        for await (const m of client.streams.getMedia(req)) parts.push(m.data);
        return Buffer.concat(parts);
      };
      expect(sha(await read({ key: 'med_grpcalias', width: 0 }))).toBe(sha(big));
      expect(await read({ key: sha(big), width: 0, range_start: 100, range_end: 199 })).toEqual(
        big.subarray(100, 200),
      );
      await expect(read({ key: '1'.repeat(64), width: 0 })).rejects.toMatchObject({
        code: 'resource_not_found',
      });
    } finally {
      client.close();
      await server.shutdown(1000);
      await slice.close();
    }
  });
});

describe('backfill of certificates issued with hot-linked images', () => {
  it('archives an image whose URL still serves the recorded bytes, flags a changed one and a dead one, and resumes without redoing any', async () => {
    const { CertificatesStore } = await import('../src/store.js');
    const { createCertificatesHandlers } = await import('../src/rpc.js');
    const { runBackfill } = await import('../src/media/workers/backfill.js');
    const { checkImage } = await import('../src/verify/image.js');
    const store = new CertificatesStore(pool, () => '0x5FbDB2315678afecb367f032d93F642f64180aa3');
    const certs = createCertificatesHandlers({ store, provider: null });
    const same = await png('#a0a0a0');
    const before = await png('#b0b0b0');
    served.set('/old-same.png', same);
    served.set('/old-changed.png', await png('#c0c0c0'));
    const items = [
      ['same', '/old-same.png', same],
      ['changed', '/old-changed.png', before],
      ['gone', '/old-gone.png', before],
    ] as const;
    const minted = await certs.mintBatch(
      {
        principal: {
          enterprise_id: 'ent_backfill',
          livemode: true,
          actor_id: 'apikey_x',
          actor_type: 'api_key',
          scopes: [],
        },
        idempotency_key: 'backfill-1',
        holder_address: '0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc',
        items: items.map(([name, p, bytes]) => ({
          name,
          image_url: `${base}${p}`,
          metadata_json: JSON.stringify({ image: { sha256: sha(bytes), contentType: 'image/png' } }),
        })),
      },
      { requestId: 'req_test', deadlineMs: Infinity },
    );
    const storage = new FsStorage(path.join(tmp, 'backfill'));
    const mediaStore = new MediaStore(pool);
    const media = new MediaService({ store: mediaStore, storage, fetch: fetchVia(agent) });
    const deps = {
      store: mediaStore,
      media,
      fetch: fetchVia(agent),
      log: createLogger('backfill', 'silent'),
    };
    const tally = await runBackfill(deps);
    expect(tally).toMatchObject({ archived: 1, changed: 1, unavailable: 1 });
    expect(await runBackfill(deps)).toEqual({ archived: 0, changed: 0, unavailable: 0 });
    const ids = minted.certificates.map((c) => c.id);
    const states = await Promise.all(ids.map((id) => mediaStore.verdictOf(id)));
    expect(states.map((s) => s?.state)).toEqual(['archived', 'changed', 'unavailable']);
    expect(await storage.has(`objects/${sha(same).slice(0, 2)}/${sha(same)}`)).toBe(true);
    const checks = await Promise.all(
      ids.map(async (id) =>
        checkImage(
          { media, store: mediaStore, publicUrl: 'https://hallmark.test' },
          (await store.getPublic(id)).certificate,
        ),
      ),
    );
    expect(checks[0]).toMatchObject({
      check: { passed: true },
      image: {
        state: 'archived',
        url: `https://hallmark.test/media/${sha(same)}`,
        source: `${base}/old-same.png`,
      },
    });
    expect(checks[1]).toMatchObject({
      check: { passed: false, detail: expect.stringContaining('Image changed since issue') },
    });
    expect(checks[2]).toMatchObject({
      check: { passed: false, detail: expect.stringContaining('Original image no longer available') },
    });
  });

  it('finds its candidates through the hot-linked index, never by reading every certificate', async () => {
    const { BACKFILL_CANDIDATES } = await import('../src/media/store.js');
    const plan = await planAtScale(pool, BACKFILL_CANDIDATES, ['', 50]);
    expect(plan).toContain('certificates_hotlinked');
    expect(plan).not.toContain('certificates_pkey');
  });
});
