// The public verification surface (no authentication, rate group `public`; the page itself
// `verify_page`, tighter): the page a certificate's QR code links to (`/verify/:id`,
// server-rendered HTML sent through the shared page shell from the presented verification the
// open API answers, verification.ts; a view records document.verified only as events.ts
// allows), the QR code itself (SVG and PNG) and the token metadata JSON the contract's tokenURI
// points at (`/api/certificate/metadata/:tokenId`). The page, the metadata and the QR codes'
// existence check read through the public cache (cache/), dropped by the certificate's events.
import { HallmarkError } from '@hallmark/kit';
import type { Certificate } from '@hallmark/proto/certificates/v1/certificates';
import QRCode from 'qrcode';
import {
  renderNotFoundPage,
  renderUnavailablePage,
  renderVerifyPage,
  warrantyStatus,
} from '../../pages/verify.js';
import { sendCachedPage, sendPage } from '../../pages/shell.js';
import { publicCacheControl, sendCached } from '../../cache/http.js';
import { notFoundError, type Cached } from '../../cache/public-cache.js';
import { readPublic } from '../certificates/public.js';
import { explorerOf } from '../../pages/explorers.js';
import { defineEndpoint, type EndpointContext } from '../../endpoint/define.js';
import { list, str, Type } from '../../endpoint/schema.js';
import { PUBLIC, TAGS } from '../certificates/certificate.js';
import type { RouteDeps } from '../shared.js';
import { recordsEvent } from './events.js';
import { verifyAndPresent } from './verification.js';

const ID_RE = /^cert_[0-9A-Za-z]{1,59}$/;
const TOKEN_RE = /^[1-9][0-9]{0,15}$/;

const idParams = Type.Object({ id: Type.String({ maxLength: 64 }) });

/** The public link of a certificate's verification page (what its QR code encodes). */
export function verifyUrl(publicUrl: string, id: string): string {
  return `${publicUrl.replace(/\/+$/, '')}/verify/${encodeURIComponent(id)}`;
}

const notFound = (err: unknown) => err instanceof HallmarkError && err.code === 'resource_not_found';

/** ERC-721 metadata JSON (name, description, image, external_url, attributes) of a certificate. */
export function tokenMetadata(c: Certificate, publicUrl: string) {
  const metadata = JSON.parse(c.metadata_json) as Record<string, unknown>;
  const attributes: { trait_type: string; value: string | number }[] = [];
  for (const [k, v] of Object.entries(metadata)) {
    if (['name', 'description', 'tokenId', 'warranty'].includes(k)) continue;
    if (typeof v === 'string' || typeof v === 'number') attributes.push({ trait_type: k, value: v });
    else if (typeof v === 'boolean') attributes.push({ trait_type: k, value: String(v) });
  }
  const warranty = metadata.warranty as Record<string, unknown> | undefined;
  if (warranty && typeof warranty === 'object') {
    const status = warrantyStatus(warranty);
    if (status) attributes.push({ trait_type: 'warranty', value: status });
  }
  attributes.push({ trait_type: 'certificate', value: c.id });
  // A marketplace reading the token sees an open lost/stolen report (docs/lost-and-stolen.md).
  if (c.stolen)
    attributes.push({ trait_type: 'reported', value: c.stolen.kind === 'lost' ? 'lost' : 'stolen' });
  return {
    name: c.name,
    description:
      typeof metadata.description === 'string' ? metadata.description : `Hallmark certificate ${c.id}`,
    ...(c.image_url ? { image: c.image_url } : {}),
    external_url: verifyUrl(publicUrl, c.id),
    attributes,
  };
}

/**
 * The verification page as the cache holds it, rendered from the presented verification (the
 * open API's JSON, verification.ts); `recordEvent` asks for a document.verified.
 */
async function renderPage(deps: RouteDeps, id: string, recordEvent: boolean) {
  const { view, issuer } = await verifyAndPresent(deps, id, recordEvent);
  return {
    body: renderVerifyPage(view, `/verify/${encodeURIComponent(id)}/qr.svg`, issuer, explorerOf(deps.config)),
    certificateId: id,
  };
}

export const getVerifyPage = defineEndpoint({
  method: 'GET',
  url: '/verify/:id',
  operationId: 'getVerifyPage',
  tags: TAGS,
  summary: 'Verification page of a certificate (HTML; no authentication)',
  access: { auth: 'public', rateGroup: 'verify_page' },
  params: idParams,
  responses: { 200: { description: 'The verification page', contentType: 'text/html' } },
  handler: async (request, deps) => {
    const { publicCache, config, reply } = deps;
    const { id } = request.params;
    if (!ID_RE.test(id)) return sendPage(reply, 404, renderNotFoundPage(id));
    try {
      // A view that records document.verified (events.ts: a few per viewer and certificate
      // an hour) verifies afresh and refreshes the cached page; the others read the cache.
      const entry: Cached = (await recordsEvent(request.server, request, id))
        ? publicCache.put('verify', id, await renderPage(deps, id, true))
        : await publicCache.get('verify', id, () => renderPage(deps, id, false));
      if (!entry.found) return sendPage(reply, 404, renderNotFoundPage(id));
      return sendCachedPage(request, reply, entry, publicCacheControl(config));
    } catch (err) {
      if (notFound(err)) return sendPage(reply, 404, renderNotFoundPage(id));
      request.log.warn({ err }, 'verification page: verification failed');
      return sendPage(reply, 503, renderUnavailablePage());
    }
  },
});

/**
 * What a certificate's QR code encodes: its GS1 Digital Link URI when it has a GTIN and serial
 * (docs/digital-link.md), else its verify page. 404 (thrown, rendered by the error handler)
 * unless the certificate exists. Read from the public read's cached answer.
 */
export async function qrTarget({ clients, config, publicCache }: RouteDeps, id: string): Promise<string> {
  if (!ID_RE.test(id)) throw new HallmarkError('resource_not_found', { message: 'No such certificate.' });
  const entry = await publicCache.get('public', id, () =>
    readPublic(clients, id, config.HALLMARK_PUBLIC_URL),
  );
  if (!entry.found) throw notFoundError(entry);
  const { digitalLink } = JSON.parse(entry.body.toString('utf8')) as { digitalLink?: string | null };
  return digitalLink ?? verifyUrl(config.HALLMARK_PUBLIC_URL, id);
}

const QR = { errorCorrectionLevel: 'M', margin: 2 } as const;

/** What both QR code endpoints declare: the same id, access and tags. */
const QR_ENDPOINT = { method: 'GET', tags: TAGS, access: PUBLIC, params: idParams } as const;

/** A certificate's QR code (its Digital Link URI or its page, `qrTarget`) in the given format. */
async function qrImage(
  format: 'svg' | 'png',
  contentType: string,
  id: string,
  deps: EndpointContext,
): Promise<never> {
  const url = await qrTarget(deps, id);
  const image =
    format === 'svg'
      ? await QRCode.toString(url, { ...QR, type: 'svg' })
      : await QRCode.toBuffer(url, { ...QR, type: 'png', width: 512 });
  return deps.reply.header('cache-control', 'public, max-age=86400').type(contentType).send(image) as never;
}

export const getVerifyQrSvg = defineEndpoint({
  ...QR_ENDPOINT,
  url: '/verify/:id/qr.svg',
  operationId: 'getVerifyQrSvg',
  summary: 'QR code (SVG) of a certificate: its GS1 Digital Link URI, else its verification page',
  responses: { 200: { description: 'QR code of the page', contentType: 'image/svg+xml' } },
  handler: (request, deps) => qrImage('svg', 'image/svg+xml', request.params.id, deps),
});

export const getVerifyQrPng = defineEndpoint({
  ...QR_ENDPOINT,
  url: '/verify/:id/qr.png',
  operationId: 'getVerifyQrPng',
  summary: 'QR code (PNG) of a certificate: its GS1 Digital Link URI, else its verification page',
  responses: { 200: { description: 'QR code of the page', contentType: 'image/png' } },
  handler: (request, deps) => qrImage('png', 'image/png', request.params.id, deps),
});

export const getTokenMetadata = defineEndpoint({
  method: 'GET',
  url: '/api/certificate/metadata/:tokenId',
  operationId: 'getTokenMetadata',
  tags: TAGS,
  summary: 'ERC-721 token metadata JSON (the contract’s tokenURI)',
  access: PUBLIC,
  params: Type.Object({ tokenId: str(80, 'Decimal token id') }),
  responses: {
    200: {
      description: 'ERC-721 metadata JSON',
      schema: Type.Object({
        name: str(200),
        description: str(5000),
        image: Type.Optional(str(2048)),
        external_url: str(2048),
        attributes: list(
          Type.Object({
            trait_type: str(100),
            value: Type.Unsafe<string | number>({
              type: ['string', 'number'],
              maxLength: 10_000,
              minimum: -1e308,
              maximum: 1e308,
            }),
          }),
          200,
        ),
      }),
    },
  },
  handler: async (request, { clients, config, publicCache, reply }) => {
    const { tokenId } = request.params;
    if (!TOKEN_RE.test(tokenId)) {
      throw new HallmarkError('resource_not_found', { message: `No such token: '${tokenId}'.` });
    }
    const entry = await publicCache.get('meta', tokenId, async () => {
      const c = await clients.verification.getPublicCertificateByToken(
        { token_id: Number(tokenId) },
        { idempotent: true },
      );
      return { body: JSON.stringify(tokenMetadata(c, config.HALLMARK_PUBLIC_URL)), certificateId: c.id };
    });
    if (!entry.found) throw notFoundError(entry);
    // The cached bytes are the answer, serialised once when cached: sent as they are.
    return sendCached(request, reply, entry, {
      contentType: 'application/json; charset=utf-8',
      cacheControl: publicCacheControl(config),
    }) as never;
  },
});
