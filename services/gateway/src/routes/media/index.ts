// Public media: certificate images archived by Hallmark, `GET /media/<sha256>` (content-addressed:
// the bytes under a name never change) and the old `/media/med_…` ids of ZIP uploads. Served
// from the certificates service's store (streamed over gRPC); an old id not yet moved there is
// answered from bulk. `?w=480|1024` gives a WebP variant for pages (made once, then kept).
import { HallmarkError } from '@hallmark/kit';
import type { FastifyInstance } from 'fastify';
import { defineEndpoint, registerEndpoints, type Access } from '../../endpoint/define.js';
import { closed, Type } from '../../endpoint/schema.js';
import type { Clients } from '../../clients.js';
import type { RouteDeps } from '../shared.js';

const PUBLIC: Access = { auth: 'public', rateGroup: 'public' };
const TAGS = ['Media'];
const KEY = /^(?:[0-9a-f]{64}|med_[A-Za-z0-9]{24})$/;

/** True when If-None-Match names this entity tag (weak comparison, RFC 9110 § 13.1.2). */
function etagMatches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  return header.split(',').some((t) => t.trim().replace(/^W\//, '') === etag);
}

/** One `bytes=` range: a-b, a-, or the last n (-n); anything else is served whole. */
function rangeOf(header: string | undefined): { start?: number; end?: number; suffix?: number } | null {
  const m = header ? /^bytes=(\d*)-(\d*)$/.exec(header.trim()) : null;
  if (!m || (m[1] === '' && m[2] === '')) return null;
  if (m[1] === '') return { suffix: Number(m[2]) };
  return { start: Number(m[1]), ...(m[2] === '' ? {} : { end: Number(m[2]) }) };
}

interface Got {
  sha256: string;
  contentType: string;
  total: number;
  bytes: Buffer;
  /** The first byte of `bytes` in the object. */
  offset: number;
}

/** From the certificates service (range applied there), or null when it has no such key. */
async function fromCertificates(
  clients: Clients,
  id: string,
  width: number,
  start?: number,
  end?: number,
): Promise<Got | null> {
  const chunks: Buffer[] = [];
  let head: Got | null = null;
  try {
    for await (const msg of clients.media.getMedia({
      key: id,
      width,
      range_start: start,
      range_end: end,
    })) {
      if (msg.media)
        head = {
          sha256: msg.media.sha256,
          contentType: msg.media.content_type,
          total: msg.total,
          bytes: Buffer.alloc(0),
          offset: start ?? 0,
        };
      chunks.push(msg.data);
    }
  } catch (err) {
    if (err instanceof HallmarkError && err.code === 'resource_not_found') return null;
    throw err;
  }
  return head && { ...head, bytes: Buffer.concat(chunks) };
}

export const getMedia = defineEndpoint({
  method: 'GET',
  url: '/media/:id',
  operationId: 'getMedia',
  tags: TAGS,
  summary: 'A certificate image (public, immutable)',
  description:
    'The stored bytes of an archived image by its sha256 (or an old media id) with their content type; ' +
    'ETag is the hash; `Cache-Control: public, max-age=31536000, immutable`; 304 on If-None-Match; ' +
    'one `Range` (206, or 416 past the end); `w=480|1024` answers a WebP variant that wide.',
  access: PUBLIC,
  params: closed({ id: Type.String({ minLength: 1, maxLength: 80 }) }),
  querystring: closed({ w: Type.Optional(Type.Unsafe<480 | 1024>({ type: 'integer', enum: [480, 1024] })) }),
  responses: { 200: { description: 'The image bytes', contentType: 'image/*' } },
  handler: async (request, { clients, reply }) => {
    const { id } = request.params;
    if (!KEY.test(id)) throw new HallmarkError('resource_not_found', { message: `No such media: '${id}'.` });
    const width = request.query.w ?? 0;
    const range = rangeOf(request.headers.range);
    const direct = range && range.suffix === undefined;
    let got = await fromCertificates(
      clients,
      id,
      width,
      direct ? range.start : undefined,
      direct ? range.end : undefined,
    );
    if (!got && id.startsWith('med_') && width === 0) {
      // Not moved yet: bulk still holds it (whole; ranges cut here).
      const m = await clients.bulk.getMedia({ media_id: id }, { idempotent: true });
      got = {
        sha256: m.sha256,
        contentType: m.content_type,
        total: m.content.length,
        bytes: m.content,
        offset: 0,
      };
    }
    if (!got) throw new HallmarkError('resource_not_found', { message: `No such media: '${id}'.` });
    const etag = width ? `"${got.sha256}-w${width}"` : `"${got.sha256}"`;
    void reply.headers({
      etag,
      // Content-addressed: the bytes under a name never change.
      'cache-control': 'public, max-age=31536000, immutable',
      'x-content-type-options': 'nosniff',
      // Stored bytes are served as inert data, never as a document that could run script.
      'content-security-policy': "default-src 'none'; sandbox",
      // Certificate pages, wallets and marketplaces on other origins embed these images.
      'cross-origin-resource-policy': 'cross-origin',
      'accept-ranges': 'bytes',
    });
    if (etagMatches(request.headers['if-none-match'], etag)) return reply.status(304).send();
    void reply.header('content-type', got.contentType || 'application/octet-stream');
    if (!range) return reply.send(got.offset === 0 ? got.bytes : got.bytes);
    const start = range.suffix !== undefined ? Math.max(0, got.total - range.suffix) : range.start!;
    const end = Math.min(
      range.suffix !== undefined ? got.total - 1 : (range.end ?? got.total - 1),
      got.total - 1,
    );
    if (start >= got.total || end < start || range.suffix === 0) {
      return reply.status(416).header('content-range', `bytes */${got.total}`).send();
    }
    const body = got.bytes.subarray(start - got.offset, end - got.offset + 1);
    return reply.status(206).header('content-range', `bytes ${start}-${end}/${got.total}`).send(body);
  },
});

export default async function mediaRoutes(app: FastifyInstance, deps: RouteDeps) {
  registerEndpoints(app, deps, [getMedia]);
}
