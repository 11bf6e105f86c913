// Fetching image URLs through the outbound guard, against a real local HTTPS server with a
// self-signed certificate: sniffed types and hashes, the byte cap on streamed bodies,
// redirects, time budget, TLS verification, and refusal of non-public addresses.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { fetchImage, ImageFetchError, type FetchImageOptions } from '../src/image-fetch.js';
import { image, TLS } from './fixtures/files.js';

const PNG = image.png('served');
let server: Server;
let base = '';
let requests: string[] = [];
let endlessClosed: Promise<void> = Promise.resolve();

beforeAll(async () => {
  server = createServer({ key: TLS.key, cert: TLS.cert }, (req, res) => {
    const path = req.url ?? '';
    requests.push(path);
    const send = (status: number, headers: Record<string, string | number>, body?: Buffer | string) =>
      res.writeHead(status, headers).end(body);
    if (path === '/png') return send(200, { 'content-type': 'image/png' }, PNG);
    if (path === '/as-html') return send(200, { 'content-type': 'text/html' }, PNG);
    if (path === '/html') return send(200, { 'content-type': 'image/png' }, '<!doctype html><p>hello</p>');
    if (path.startsWith('/sized/'))
      return send(200, {}, Buffer.concat([PNG, Buffer.alloc(Number(path.slice(7)) - PNG.length)]));
    if (path === '/declared-big') return send(200, { 'content-length': 5000 }, Buffer.alloc(5000));
    if (path === '/missing') return send(404, {}, 'not found');
    if (path === '/down') return send(503, {}, 'down');
    if (path === '/redirect') return send(302, { location: '/png' });
    if (path === '/loop') return send(302, { location: '/loop' });
    if (path === '/to-http') return send(302, { location: `http://127.0.0.1:${port()}/png` });
    if (path === '/slow') return; // never answers
    if (path === '/stall') return void res.writeHead(200).write(PNG); // headers, a little, then nothing
    if (path === '/endless') {
      // No content-length: only a cap on the stream can stop this.
      res.writeHead(200, { 'content-type': 'image/png' });
      res.write(PNG);
      endlessClosed = new Promise((resolve) => res.on('close', () => resolve()));
      const more = () => {
        while (res.write(Buffer.alloc(16 * 1024, 1)));
      };
      res.on('drain', more);
      more();
      return;
    }
    send(500, {}, 'unexpected');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `https://127.0.0.1:${port()}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

beforeEach(() => {
  requests = [];
});

const port = () => (server.address() as AddressInfo).port;
const OPTS: FetchImageOptions = {
  timeoutMs: 5000,
  maxBytes: 10 * 1024 * 1024,
  allowHosts: '127.0.0.1',
  ca: TLS.cert,
};

async function failure(url: string, opts: Partial<FetchImageOptions> = {}): Promise<ImageFetchError> {
  try {
    await fetchImage(url, { ...OPTS, ...opts });
  } catch (err) {
    expect(err).toBeInstanceOf(ImageFetchError);
    return err as ImageFetchError;
  }
  throw new Error('expected the fetch to fail');
}

describe('fetchImage', () => {
  it('returns the sniffed type, SHA-256 and size of the body', async () => {
    await expect(fetchImage(`${base}/png`, OPTS)).resolves.toEqual({
      url: `${base}/png`,
      contentType: 'image/png',
      sha256: createHash('sha256').update(PNG).digest('hex'),
      bytes: PNG.length,
    });
  });

  it('believes the bytes, not the Content-Type header', async () => {
    await expect(fetchImage(`${base}/as-html`, OPTS)).resolves.toMatchObject({ contentType: 'image/png' });
    expect((await failure(`${base}/html`)).message).toMatch(/^not an image/);
  });

  it('accepts a body of exactly maxBytes and refuses one byte more', async () => {
    await expect(fetchImage(`${base}/sized/10000`, { ...OPTS, maxBytes: 10_000 })).resolves.toMatchObject({
      bytes: 10_000,
    });
    expect((await failure(`${base}/sized/10001`, { maxBytes: 10_000 })).message).toBe(
      'image larger than 10 KB',
    );
  });

  it('refuses a declared Content-Length over the cap', async () => {
    expect((await failure(`${base}/declared-big`, { maxBytes: 1000 })).message).toBe(
      'image larger than 1000 bytes',
    );
  });

  it('stops reading an endless body at the cap and drops the connection', async () => {
    const err = await failure(`${base}/endless`, { maxBytes: 1024 * 1024 });
    expect(err.message).toBe('image larger than 1 MB');
    await endlessClosed; // the server saw the connection go: nothing keeps downloading
  });

  it('reports HTTP errors: 404 is final, 503 may be retried', async () => {
    expect(await failure(`${base}/missing`)).toMatchObject({
      message: 'image fetch failed: HTTP 404',
      retryable: false,
    });
    expect(await failure(`${base}/down`)).toMatchObject({
      message: 'image fetch failed: HTTP 503',
      retryable: true,
    });
  });

  it('follows a redirect to https, but not a redirect loop or a redirect to http', async () => {
    await expect(fetchImage(`${base}/redirect`, OPTS)).resolves.toMatchObject({
      url: `${base}/redirect`,
      contentType: 'image/png',
    });
    expect((await failure(`${base}/loop`)).message).toBe('image fetch failed: more than 3 redirects');
    expect(requests.filter((p) => p === '/loop')).toHaveLength(4);
    requests = [];
    expect((await failure(`${base}/to-http`)).message).toBe('image URL is redirected to not an HTTPS URL');
    expect(requests).toEqual(['/to-http']);
  });

  it('gives up after timeoutMs, for the headers or the body, as a retryable failure', async () => {
    const started = Date.now();
    expect(await failure(`${base}/slow`, { timeoutMs: 300 })).toMatchObject({
      message: 'image fetch failed: timed out after 300 ms',
      retryable: true,
    });
    expect(Date.now() - started).toBeLessThan(3000);
    expect(await failure(`${base}/stall`, { timeoutMs: 300 })).toMatchObject({
      message: 'image fetch failed: timed out after 300 ms',
    });
  });

  it('refuses http URLs and URLs with credentials without connecting', async () => {
    expect((await failure(`http://127.0.0.1:${port()}/png`)).message).toBe('image URL is not an HTTPS URL');
    expect((await failure(`https://u:p@127.0.0.1:${port()}/png`)).message).toMatch(/credentials/);
    expect(requests).toEqual([]);
  });

  it('refuses loopback, private and metadata addresses unless allowed, without connecting', async () => {
    const err = await failure(`${base}/png`, { allowHosts: '' });
    expect(err.message).toMatch(
      /^image fetch failed: address not allowed \(127\.0\.0\.1 is a loopback address\)/,
    );
    expect(err.retryable).toBe(false);
    expect((await failure('https://169.254.169.254/latest/meta-data', { allowHosts: '' })).message).toMatch(
      /address not allowed .*link-local/,
    );
    expect((await failure('https://localhost:1/x.png', { allowHosts: '' })).message).toMatch(
      /address not allowed/,
    );
    expect(requests).toEqual([]);
  });

  it('verifies TLS: a certificate the client does not trust is refused', async () => {
    const err = await failure(`${base}/png`, { ca: undefined });
    expect(err.message).toMatch(/^image fetch failed: the TLS certificate is not trusted/);
    expect(requests).toEqual([]);
  });
});
