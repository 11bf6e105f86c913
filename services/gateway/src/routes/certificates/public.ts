// /api/certificate/public/:id: the public read of a certificate. It needs no credential and
// is rate limited per client (rate group `public`, before the cache), then answered from the
// public cache (cache/: ETag, 304, Cache-Control).
import type { Certificate, ProvenanceEntry } from '@hallmark/proto/certificates/v1/certificates';
import { publicCacheControl, sendCached } from '../../cache/http.js';
import { notFoundError, type Filled } from '../../cache/public-cache.js';
import type { Clients } from '../../clients.js';
import { issuerFrom, presentIssuer, type IssuerView } from '../../pages/issuer.js';
import { defineEndpoint } from '../../endpoint/define.js';
import { idParams, type Static } from '../../endpoint/schema.js';
import { digitalLinkUrl } from '../digital-link/links.js';
import { PUBLIC, PublicCertificate, StolenFlag, TAGS } from './certificate.js';
import { presentServiceHistory } from './service-history.js';

function presentProvenance(p: ProvenanceEntry) {
  return {
    kind: p.kind,
    actor: p.actor ?? null,
    from: p.from ?? null,
    to: p.to ?? null,
    transactionHash: p.transaction_hash ?? null,
    blockNumber: p.block_number ?? null,
    at: p.at,
  };
}

/** The spec's public certificate `{id, name, imageUrl, metadata, provenance}`, plus its status. */
export function presentPublicCertificate(
  c: Certificate,
  publicUrl: string,
  issuer?: IssuerView | null,
): Static<typeof PublicCertificate> {
  return {
    ...(issuer !== undefined ? { issuer: presentIssuer(issuer) } : {}),
    id: c.id,
    name: c.name,
    imageUrl: c.image_url ?? null,
    metadata: JSON.parse(c.metadata_json) as Record<string, unknown>,
    provenance: c.provenance.map(presentProvenance),
    status: c.status,
    burned: c.status === 'burned',
    tokenId: c.token_id ?? null,
    transactionHash: c.transaction_hash ?? null,
    blockNumber: c.block_number ?? null,
    gtin: c.gtin ?? null,
    serial: c.serial ?? null,
    digitalLink: c.digital_link_path ? digitalLinkUrl(publicUrl, c.digital_link_path) : null,
    stolen: presentStolen(c.stolen),
    // Accepted service records only (docs/service-records.md).
    serviceHistory: presentServiceHistory(c.service_history),
  };
}

/** An open lost/stolen report as the public read and the verification JSON carry it. */
export const presentStolen = (s: Certificate['stolen']): Static<typeof StolenFlag> | null =>
  s
    ? {
        kind: s.kind as 'stolen' | 'lost',
        reportedAt: s.reported_at,
        reportedBy: s.reported_by as 'brand' | 'owner',
      }
    : null;

/** The public read's answer as the cache holds it (a fill of `public:<id>`). */
export async function readPublic(clients: Clients, id: string, publicUrl: string): Promise<Filled> {
  // Batched with the other scans of the moment (cache/public-reads.ts).
  const c = await clients.publicCertificates.read(id);
  // The issuer's profile comes with the certificate and rides in the cached body: a profile
  // change shows within the cache's TTL.
  return {
    body: JSON.stringify(presentPublicCertificate(c, publicUrl, issuerFrom(c.issuer))),
    certificateId: id,
  };
}

export const getPublicCertificate = defineEndpoint({
  method: 'GET',
  url: '/api/certificate/public/:id',
  operationId: 'getPublicCertificate',
  tags: TAGS,
  summary: 'Public read of a certificate (no authentication)',
  access: PUBLIC,
  params: idParams('id'),
  responses: {
    200: { description: 'The certificate with its provenance', schema: PublicCertificate },
  },
  handler: async (request, { clients, config, publicCache, reply }) => {
    const { id } = request.params;
    const entry = await publicCache.get('public', id, () =>
      readPublic(clients, id, config.HALLMARK_PUBLIC_URL),
    );
    if (!entry.found) throw notFoundError(entry);
    // The cached bytes are the answer, serialised once when cached (readPublic): sent as they
    // are (a Buffer is never re-serialised), with their ETag or a 304.
    return sendCached(request, reply, entry, {
      contentType: 'application/json; charset=utf-8',
      cacheControl: publicCacheControl(config),
    }) as never;
  },
});
