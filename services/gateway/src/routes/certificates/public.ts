// /api/certificate: the public surface of certificates (unversioned style). The public read
// needs no credential and is rate limited per client (rate group `public`); health reports
// the certificates service's database and chain reachability.
import type { Certificate, ProvenanceEntry } from '@hallmark/proto/certificates/v1/certificates';
import type { FastifyInstance } from 'fastify';
import { loadIssuer, presentIssuer, type IssuerView } from '../../pages/issuer.js';
import { idParam, type RouteDeps } from '../shared.js';

const TAGS = ['Certificates'];
const PUBLIC = { auth: 'public' as const, rateGroup: 'public' as const };

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
export function presentPublicCertificate(c: Certificate, issuer?: IssuerView | null) {
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
  };
}

export default async function certificates(app: FastifyInstance, { clients }: RouteDeps) {
  app.get<{ Params: { id: string } }>(
    '/api/certificate/public/:id',
    {
      config: PUBLIC,
      schema: {
        tags: TAGS,
        summary: 'Public read of a certificate (no authentication)',
        params: idParam('id'),
      },
    },
    async (request) => {
      const c = await clients.certificates.getPublicCertificate(
        { certificate_id: request.params.id },
        { idempotent: true },
      );
      return presentPublicCertificate(c, await loadIssuer(clients.keys, c.enterprise_id));
    },
  );

  app.get(
    '/api/certificate/health',
    { config: PUBLIC, schema: { tags: TAGS, summary: 'Certificates database and chain reachability' } },
    async (_request, reply) => {
      const h = await clients.certificates
        .health({}, { idempotent: true, deadlineMs: 3000 })
        .catch(() => ({ database: false, chain: false }));
      const ok = h.database && h.chain;
      return reply.status(ok ? 200 : 503).send({
        status: ok ? 'ok' : 'degraded',
        timestamp: new Date().toISOString(),
        database: h.database ? 'ok' : 'unreachable',
        chain: h.chain ? 'ok' : 'unreachable',
      });
    },
  );
}
