// The open verification API: `GET /api/certificate/verify/:id` answers a certificate's
// verification (the certificates service's checks of its record against the chain) as JSON, for
// marketplaces, wallets and the CLI. `presentVerification` is the one presented object: this
// endpoint sends it and the verify page (pages.ts) is rendered from it, each from one
// VerifyCertificate call. Like the page: no credential, rate group `verify_page`, a view records
// `document.verified` only as events.ts allows, and the answer comes from the public cache
// (ETag, 304), dropped by the certificate's events. Public, so CORS-open (plugins/cors.ts).
import type { ProvenanceEntry as ProtoProvenance } from '@hallmark/proto/certificates/v1/certificates';
import type { VerifyCertificateResponse } from '@hallmark/proto/certificates/v1/verification';
import { publicCacheControl, sendCached } from '../../cache/http.js';
import { notFoundError, type Cached } from '../../cache/public-cache.js';
import { defineEndpoint } from '../../endpoint/define.js';
import { defineResource } from '../../endpoint/resource.js';
import { bool, int, list, nullable, oneOf, str, time, Type, type Static } from '../../endpoint/schema.js';
import { issuerFrom, presentIssuer } from '../../pages/issuer.js';
import { freeObject, ProvenanceEntry, StolenFlag, TAGS } from '../certificates/certificate.js';
import { presentStolen } from '../certificates/public.js';
import type { RouteDeps } from '../shared.js';
import { recordsEvent } from './events.js';

/** A certificate id as Hallmark issues them; anything else is malformed (400), never looked up. */
export const CERTIFICATE_ID = '^cert_[0-9A-Za-z]{1,59}$';

const Check = Type.Object({
  name: str(32, 'record_found, on_chain, holder, metadata, not_burned, image'),
  passed: bool,
  detail: str(2000, 'Why it passed or failed, in words a reader understands'),
});

const VerifiedImage = Type.Object({
  url: str(2048, 'Hallmark’s copy (/media/<sha256>), or the merchant’s URL while not archived'),
  sha256: str(64, 'The SHA-256 recorded in the metadata anchored on chain'),
  width: int(),
  height: int(),
  state: oneOf(['archived', 'hotlinked', 'unavailable', 'changed']),
  source: nullable(str(2048, 'The merchant’s original URL')),
});

const ChainRecord = Type.Object(
  {
    chainId: nullable(str(20, 'Decimal id of the chain the checks read')),
    contract: nullable(str(42, 'The certificates contract the checks read')),
    tokenId: nullable(int()),
    transactionHash: nullable(str(66, 'The mint transaction')),
    blockNumber: nullable(int()),
    batchId: nullable(str(64)),
    merkleRoot: nullable(str(66, 'The batch’s Merkle root; the metadata hash is one of its leaves')),
    metadataHash: nullable(str(66, 'keccak256 of the canonical JSON of {name, imageUrl, metadata}')),
    holder: nullable(str(42, 'The holder Hallmark recorded')),
    owner: nullable(str(42, 'The owner the chain reports, when the token exists')),
  },
  { description: 'What the checks read on chain: where to check it again by hand' },
);

const Links = Type.Object({
  verifyPage: str(2048, 'The verification page (what the QR code encodes)'),
  qrCode: str(2048, 'The QR code of the page (SVG)'),
  proofBundle: nullable(str(2048, 'The proof bundle (JSON), once minted')),
  credential: nullable(str(2048, 'The verifiable credential, once minted')),
  metadata: nullable(str(2048, 'The ERC-721 token metadata (tokenURI), once minted')),
});

/** presentVerification: the public read's fields, plus the checks, the chain record and links. */
export const CertificateVerification = defineResource(
  'CertificateVerification',
  Type.Object(
    {
      id: str(64),
      name: str(200),
      verified: Type.Boolean({ description: 'True when every check passed' }),
      burned: Type.Boolean({ description: 'True when the record or the chain says the token was burned' }),
      status: str(32),
      stolen: nullable(StolenFlag),
      verifiedAt: time,
      checks: list(Check, 20),
      issuer: nullable(
        Type.Object({ name: str(100), website: str(2048), domain: str(300), domainVerified: bool }),
      ),
      imageUrl: nullable(str(2048)),
      image: nullable(VerifiedImage),
      metadata: freeObject('The certificate’s metadata as minted (and its warranty once set)'),
      provenance: list(ProvenanceEntry, 10_000),
      chain: ChainRecord,
      links: Links,
    },
    { description: 'A certificate’s verification: each check with its reason, and what was checked' },
  ),
);

export type Verification = Static<typeof CertificateVerification>;

const camelProvenance = (p: ProtoProvenance) => ({
  kind: p.kind,
  actor: p.actor ?? null,
  from: p.from ?? null,
  to: p.to ?? null,
  transactionHash: p.transaction_hash ?? null,
  blockNumber: p.block_number ?? null,
  at: p.at,
});

function metadataOf(json: string): Record<string, unknown> {
  try {
    const m: unknown = JSON.parse(json);
    return m && typeof m === 'object' && !Array.isArray(m) ? (m as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** The verification as the API answers it and the page shows it, from one VerifyCertificate. */
export function presentVerification(v: VerifyCertificateResponse, publicUrl: string): Verification {
  const c = v.certificate!;
  const base = publicUrl.replace(/\/+$/, '');
  const id = encodeURIComponent(c.id);
  const minted = c.token_id !== undefined;
  return {
    id: c.id,
    name: c.name,
    verified: v.verified,
    burned: v.burned,
    status: v.burned ? 'burned' : c.status,
    stolen: presentStolen(c.stolen),
    verifiedAt: v.verified_at,
    checks: v.checks.map((k) => ({ name: k.name, passed: k.passed, detail: k.detail })),
    issuer: presentIssuer(issuerFrom(c.issuer)),
    imageUrl: c.image_url ?? null,
    image: v.image
      ? {
          url: v.image.url,
          sha256: v.image.sha256,
          width: v.image.width,
          height: v.image.height,
          state: v.image.state,
          source: v.image.source ?? null,
        }
      : null,
    metadata: metadataOf(c.metadata_json),
    provenance: c.provenance.map(camelProvenance),
    chain: {
      chainId: v.chain_id ?? null,
      contract: v.contract_address ?? null,
      tokenId: c.token_id ?? null,
      transactionHash: c.transaction_hash ?? null,
      blockNumber: c.block_number ?? null,
      batchId: c.batch_id || null,
      merkleRoot: v.merkle_root ?? null,
      metadataHash: c.metadata_hash || null,
      holder: c.holder_address || null,
      owner: v.chain_owner ?? null,
    },
    links: {
      verifyPage: `${base}/verify/${id}`,
      qrCode: `${base}/verify/${id}/qr.svg`,
      proofBundle: minted ? `${base}/api/certificate/${id}/proof` : null,
      credential: minted ? `${base}/api/certificate/${id}/credential` : null,
      metadata: minted ? `${base}/api/certificate/metadata/${c.token_id}` : null,
    },
  };
}

/**
 * One verification (one VerifyCertificate call), recording document.verified when asked; the
 * certificates service answers resource_not_found for an unknown id.
 */
export async function verifyAndPresent({ clients, config }: RouteDeps, id: string, recordEvent: boolean) {
  const v = await clients.verification.verifyCertificate(
    { certificate_id: id, record_event: recordEvent },
    { deadlineMs: 10_000 },
  );
  return {
    view: presentVerification(v, config.HALLMARK_PUBLIC_URL),
    issuer: issuerFrom(v.certificate?.issuer),
  };
}

export const getCertificateVerification = defineEndpoint({
  method: 'GET',
  url: '/api/certificate/verify/:id',
  operationId: 'getCertificateVerification',
  tags: TAGS,
  summary: 'Verify a certificate: each check against the chain, as JSON (no authentication)',
  description:
    'The checks the verification page shows, each with its reason: the record exists, the token was ' +
    'minted in the recorded transaction and block, the chain reports the recorded holder, the metadata ' +
    'is proven against the batch’s Merkle root on chain, the token is not burned (and the image matches ' +
    'its anchored hash, when it has one). A failed check is an answer (200, `verified: false`), not an ' +
    'error. Open to any origin (CORS), rate limited per client like the page.',
  access: { auth: 'public', rateGroup: 'verify_page' },
  params: Type.Object(
    { id: Type.String({ pattern: CERTIFICATE_ID, maxLength: 64, description: 'A certificate id (cert_…)' }) },
    { additionalProperties: false },
  ),
  responses: { 200: { description: 'The verification', schema: CertificateVerification } },
  handler: async (request, deps) => {
    const { id } = request.params;
    const fill = async (recordEvent: boolean) => ({
      body: JSON.stringify((await verifyAndPresent(deps, id, recordEvent)).view),
      certificateId: id,
    });
    // As the page: a view that records document.verified verifies afresh and refreshes the
    // cached answer; the others read the cache (its own entry: JSON, not the page's HTML).
    const entry: Cached = (await recordsEvent(request.server, request, id))
      ? deps.publicCache.put('verification', id, await fill(true))
      : await deps.publicCache.get('verification', id, () => fill(false));
    if (!entry.found) throw notFoundError(entry);
    return sendCached(request, deps.reply, entry, {
      contentType: 'application/json; charset=utf-8',
      cacheControl: publicCacheControl(deps.config),
    }) as never;
  },
});
