// The certificate as anyone may read it (spec › Public read), the shape the public read and
// the warranty answer share; and the warranty as stored. Plain schemas, not components: the
// document has always shown them inline (defineResource would turn them into `$ref`s and
// rename types in the generated client).
import type { Access } from '../../endpoint/define.js';
import { bool, int, list, nullable, str, time, Type } from '../../endpoint/schema.js';

export const TAGS = ['Certificates'];

/** A JSON object whose fields are the issuer's own: sent as it is (not cut to named fields). */
export const freeObject = (description: string) =>
  Type.Unsafe<Record<string, unknown>>({ type: 'object', additionalProperties: true, description });

export const ProvenanceEntry = Type.Object({
  kind: str(32, 'minted, transferred, warranty_set, warranty_changed, burned, …'),
  actor: nullable(str(255)),
  from: nullable(str(64)),
  to: nullable(str(64)),
  transactionHash: nullable(str(66)),
  blockNumber: nullable(int()),
  at: time,
});

/** An open lost/stolen report as anyone reads it (docs/lost-and-stolen.md): never its reason. */
export const StolenFlag = Type.Object(
  {
    kind: Type.Unsafe<'stolen' | 'lost'>({ type: 'string', enum: ['stolen', 'lost'] }),
    reportedAt: time,
    reportedBy: Type.Unsafe<'brand' | 'owner'>({ type: 'string', enum: ['brand', 'owner'] }),
  },
  { description: 'Set while the certificate is reported stolen or lost; null otherwise' },
);

/** presentPublicCertificate (public.ts). */
export const PublicCertificate = Type.Object(
  {
    id: str(64),
    name: str(200),
    imageUrl: nullable(str(2048)),
    metadata: freeObject('The certificate’s metadata as minted (and its warranty once set)'),
    provenance: list(ProvenanceEntry, 10_000),
    status: str(32),
    burned: bool,
    tokenId: nullable(int()),
    transactionHash: nullable(str(66)),
    blockNumber: nullable(int()),
    gtin: nullable(str(14, 'GS1 GTIN, 14 digits (docs/digital-link.md); null without one')),
    serial: nullable(str(20, 'GS1 serial (AI 21), with the GTIN; null without one')),
    digitalLink: nullable(
      str(2200, 'The GS1 Digital Link URI its QR codes encode (`<public URL>/01/<gtin>/21/<serial>`)'),
    ),
    stolen: Type.Optional(nullable(StolenFlag)),
    issuer: Type.Optional(
      nullable(
        Type.Object({
          name: str(100),
          website: str(2048),
          domain: str(300),
          domainVerified: bool,
        }),
      ),
    ),
  },
  { description: 'A certificate as anyone may read it (spec › Public read)' },
);

/** The warranty as stored, with its status derived from the dates. */
export const Warranty = Type.Object({
  period: Type.Unsafe<number | 'Lifetime'>({
    oneOf: [
      { type: 'integer', format: 'int32', minimum: 1, maximum: 100, description: 'Years' },
      { type: 'string', const: 'Lifetime' },
    ],
  }),
  type: str(32),
  startDate: Type.String({ format: 'date', maxLength: 10 }),
  endDate: Type.String({ format: 'date', maxLength: 10 }),
  coverage: str(5000),
  exclusions: Type.Optional(str(5000)),
  claimProcess: str(5000),
  contactInfo: str(1000),
  termsUrl: Type.Optional(str(2048)),
  status: Type.Unsafe<'future' | 'active' | 'expired'>({
    type: 'string',
    enum: ['future', 'active', 'expired'],
  }),
});

/** No credential, per client address (rate group `public`, counted before the cache). */
export const PUBLIC: Access = { auth: 'public', rateGroup: 'public' };
