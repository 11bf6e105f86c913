// The GS1 Digital Link resolver (docs/digital-link.md): `/01/<gtin>[/22/…][/10/…][/21/<serial>]`
// as a GS1-Conformant resolver answers it. GET redirects (307) to the certificate's verify page,
// or to the link of `?linkType=gs1:<type>`; `?linkType=all` (or `Accept:
// application/linkset+json`) answers the RFC 9264 linkset; every resolution carries the `Link`
// header; HEAD (Fastify's, from GET) answers the same without a body; OPTIONS (the CORS
// plugin's, as for every public endpoint) answers the methods and CORS. Certificates parses the path (400 on bad syntax) and finds the item (404):
// one ResolveDigitalLink call per request.
import { HallmarkError } from '@hallmark/kit';
import type { FastifyRequest } from 'fastify';
import { defineEndpoint, type EndpointContext } from '../../endpoint/define.js';
import { str, Type } from '../../endpoint/schema.js';
import { PUBLIC } from '../certificates/certificate.js';
import { digitalLinkUrl, linkHeaderOf, linkOfType, linksetOf, linksOf } from './links.js';

const TAGS = ['GS1 Digital Link'];
const LINKSET = 'application/linkset+json';

/** `linkType` and whatever else a Digital Link query carries (GS1 data attributes): ignored. */
const query = Type.Object(
  {
    linkType: Type.Optional(
      str(300, '`all` (or `linkset`): the linkset; `gs1:<type>` or its URI: redirect to that link'),
    ),
  },
  { additionalProperties: str(2000), maxProperties: 50 },
);

const RESPONSES = {
  200: {
    description:
      'The linkset (RFC 9264) of the item, for `linkType=all` or `Accept: application/linkset+json`',
    contentType: LINKSET,
  },
  307: {
    description:
      'Redirect to the verify page (default) or to the link of `linkType`; `Link` lists every link',
  },
} as const;

const wantsLinkset = (request: FastifyRequest, linkType: string | undefined) =>
  linkType === 'all' ||
  linkType === 'linkset' ||
  (linkType === undefined && (request.headers.accept ?? '').toLowerCase().includes(LINKSET));

async function resolve(
  request: FastifyRequest<{ Querystring: { linkType?: string } }>,
  { clients, config, reply }: EndpointContext,
): Promise<never> {
  // The path as sent (still percent-encoded: a serial may hold an encoded `/`), after `/01/`.
  const rest = request.url.split('?')[0]!.slice('/01/'.length);
  // The answer depends on Accept (linkset or redirect). CORS, on every answer including the
  // 400s and 404s, and OPTIONS (Allow, preflight) come from the endpoint being public
  // (plugins/cors.ts).
  reply.header('vary', 'Accept');
  const r = await clients.verification.resolveDigitalLink({ path: rest }, { idempotent: true });
  const anchor = digitalLinkUrl(config.HALLMARK_PUBLIC_URL, r.digital_link_path);
  const links = linksOf(r, config.HALLMARK_PUBLIC_URL);
  reply.header('link', linkHeaderOf(anchor, links)).header('cache-control', 'public, max-age=60');
  const { linkType } = request.query;
  if (wantsLinkset(request, linkType))
    return (
      reply
        .status(200)
        // As RFC 9264 registers the type: a string body (or reply.type) would get a charset added.
        .header('content-type', LINKSET)
        .send(Buffer.from(JSON.stringify(linksetOf(anchor, links)))) as never
    );
  const target = linkType === undefined ? links[0]! : linkOfType(links, linkType);
  if (!target)
    throw new HallmarkError('resource_not_found', {
      message: `This item has no link of type '${linkType!.slice(0, 100)}'. Its links: ?linkType=all.`,
    });
  return reply.redirect(target.href, 307) as never;
}

export const resolveGtin = defineEndpoint({
  method: 'GET',
  url: '/01/:gtin',
  operationId: 'resolveDigitalLinkGtin',
  tags: TAGS,
  summary: 'GS1 Digital Link of a GTIN alone: checked, then 404 (Hallmark resolves items, not products)',
  description:
    'A well-formed GTIN answers 404 `resource_not_found`: Hallmark publishes links for serialised ' +
    'items only (`/01/{gtin}/21/{serial}`). A malformed GTIN (digits, length, check digit) answers 400.',
  access: PUBLIC,
  params: Type.Object({ gtin: str(40, 'GTIN-8, -12, -13 or -14') }),
  querystring: query,
  responses: RESPONSES,
  handler: resolve,
});

export const resolveItem = defineEndpoint({
  method: 'GET',
  url: '/01/:gtin/21/:serial',
  operationId: 'resolveDigitalLink',
  tags: TAGS,
  summary: 'Resolve the GS1 Digital Link of a certified item (no authentication)',
  description:
    'GET redirects (307) to the certificate’s verify page; `linkType=all` or `Accept: ' +
    'application/linkset+json` answers its linkset (RFC 9264); `linkType=gs1:<type>` redirects to ' +
    'that link (404 if the item has none). Every answer lists the links in a `Link` header. Bad ' +
    'syntax (GTIN digits, length or check digit; serial outside GS1 CSET 82 or over 20 characters): ' +
    '400. An unknown item: 404. HEAD answers the same headers; OPTIONS the allowed methods.',
  access: PUBLIC,
  params: Type.Object({
    gtin: str(40, 'GTIN-8, -12, -13 or -14 (14 digits canonical)'),
    serial: str(200, 'Serial (AI 21), percent-encoded'),
  }),
  querystring: query,
  responses: RESPONSES,
  handler: resolve,
});

/** Other qualifier paths (lot, variant, an unknown AI, a trailing slash): the same rules. */
export const resolveQualified = defineEndpoint({
  method: 'GET',
  url: '/01/:gtin/*',
  hidden: true,
  access: PUBLIC,
  querystring: query,
  responses: RESPONSES,
  handler: resolve,
});
