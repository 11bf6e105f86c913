// routes/media/: archived certificate images served from the certificates service's store
// (a server stream), old ZIP ids from bulk until moved; caching, ranges and variants.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { HallmarkError } from '@hallmark/kit';
import { startHarness, type Harness } from './harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
}, 120_000);
afterAll(() => h.close());
beforeEach(() => h.reset());

const SHA = 'ab'.repeat(32);
const BYTES = Buffer.from('0123456789PNGDATA');
const ref = { sha256: SHA, content_type: 'image/png', size: BYTES.length, width: 4, height: 3 };

/** GetMedia as certificates answers it: the range asked for, in two messages. */
function stored(req: { key: string; width: number; range_start?: number; range_end?: number }) {
  if (req.key !== SHA && req.key !== 'med_' + 'A'.repeat(24)) throw new HallmarkError('resource_not_found');
  const start = req.range_start ?? 0;
  const end = Math.min(req.range_end ?? BYTES.length - 1, BYTES.length - 1);
  const part = start >= BYTES.length ? Buffer.alloc(0) : BYTES.subarray(start, end + 1);
  const media = req.width ? { ...ref, content_type: 'image/webp' } : ref;
  return [
    { media, total: BYTES.length, data: part.subarray(0, 3) },
    { total: BYTES.length, data: part.subarray(3) },
  ];
}

describe('GET /media/:id', () => {
  it('serves the stored bytes as inert, immutable data: content type, ETag = sha256, nosniff, 304 when it matches', async () => {
    h.answer('media', 'getMedia', async (req) => stored(req));
    const res = await h.app.inject({ method: 'GET', url: `/media/${SHA}` });
    expect(res.statusCode).toBe(200);
    expect(res.rawPayload).toEqual(BYTES);
    expect(res.headers).toMatchObject({
      'content-type': 'image/png',
      etag: `"${SHA}"`,
      'cache-control': 'public, max-age=31536000, immutable',
      'x-content-type-options': 'nosniff',
      'content-security-policy': "default-src 'none'; sandbox",
      'accept-ranges': 'bytes',
    });
    const again = await h.app.inject({
      method: 'GET',
      url: `/media/${SHA}`,
      headers: { 'if-none-match': `"${SHA}"` },
    });
    expect(again.statusCode).toBe(304);
  });

  it('answers one byte range with 206 and Content-Range, the last n bytes too, and 416 past the end', async () => {
    h.answer('media', 'getMedia', async (req) => stored(req));
    const part = await h.app.inject({ method: 'GET', url: `/media/${SHA}`, headers: { range: 'bytes=2-5' } });
    expect(part.statusCode).toBe(206);
    expect(part.body).toBe('2345');
    expect(part.headers['content-range']).toBe(`bytes 2-5/${BYTES.length}`);
    expect(h.callsTo('media', 'getMedia')[0]).toMatchObject({ key: SHA, range_start: 2, range_end: 5 });
    const tail = await h.app.inject({ method: 'GET', url: `/media/${SHA}`, headers: { range: 'bytes=-4' } });
    expect(tail.statusCode).toBe(206);
    expect(tail.body).toBe('DATA');
    const past = await h.app.inject({
      method: 'GET',
      url: `/media/${SHA}`,
      headers: { range: 'bytes=100-' },
    });
    expect(past.statusCode).toBe(416);
    expect(past.headers['content-range']).toBe(`bytes */${BYTES.length}`);
  });

  it('answers the WebP variant of w=480 or 1024 under its own ETag, and 400 for another width', async () => {
    h.answer('media', 'getMedia', async (req) => stored(req));
    const res = await h.app.inject({ method: 'GET', url: `/media/${SHA}?w=480` });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('image/webp');
    expect(res.headers.etag).toBe(`"${SHA}-w480"`);
    expect(h.callsTo('media', 'getMedia')[0]).toMatchObject({ width: 480 });
    const bad = await h.app.inject({ method: 'GET', url: `/media/${SHA}?w=333` });
    expect(bad.statusCode).toBe(400);
  });

  it('keeps an old ZIP id answering: from certificates once moved, from bulk before', async () => {
    const moved = 'med_' + 'A'.repeat(24);
    h.answer('media', 'getMedia', async (req) => stored(req));
    expect((await h.app.inject({ method: 'GET', url: `/media/${moved}` })).rawPayload).toEqual(BYTES);
    const old = 'med_' + 'B'.repeat(24);
    h.answer('bulk', 'getMedia', async () => ({
      content: Buffer.from('OLD'),
      content_type: 'image/png',
      sha256: 'cd12',
    }));
    const res = await h.app.inject({ method: 'GET', url: `/media/${old}` });
    expect(res.statusCode).toBe(200);
    expect(res.body).toBe('OLD');
    expect(res.headers.etag).toBe('"cd12"');
  });

  it('is 404 for an unknown or malformed key, without asking anyone for a malformed one', async () => {
    h.answer('media', 'getMedia', async (req) => stored(req));
    h.answer('bulk', 'getMedia', async () => {
      throw new HallmarkError('resource_not_found');
    });
    expect((await h.app.inject({ method: 'GET', url: `/media/${'cd'.repeat(32)}` })).statusCode).toBe(404);
    expect((await h.app.inject({ method: 'GET', url: `/media/med_${'C'.repeat(24)}` })).statusCode).toBe(404);
    h.reset();
    const res = await h.app.inject({ method: 'GET', url: '/media/..%2Fetc' });
    expect(res.statusCode).toBe(404);
    expect(res.json().error).toMatchObject({ code: 'resource_not_found' });
    expect(h.calls).toEqual([]);
  });
});
