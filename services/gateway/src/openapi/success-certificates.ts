// Success answers of the certificate reads and writes outside the bulk jobs not yet declared
// (endpoint/define.ts): the public read, the ERC-721 metadata, the enterprise's warranty
// template and the certificate vouchers, field by field as the route handlers present them.
// Merged into SUCCESS.
import { int, list, nullable, obj, str, time } from './schema-helpers.js';

const bool = { type: 'boolean' };
const yes = { type: 'boolean', const: true };
const freeObject = (description: string) => ({ type: 'object', description });

const ProvenanceEntry = obj(['kind', 'actor', 'from', 'to', 'transactionHash', 'blockNumber', 'at'], {
  kind: str(32, 'minted, transferred, warranty_set, warranty_changed, burned, …'),
  actor: nullable(str(255)),
  from: nullable(str(64)),
  to: nullable(str(64)),
  transactionHash: nullable(str(66)),
  blockNumber: nullable(int()),
  at: time,
});

/** presentPublicCertificate (routes/certificates.ts). */
export const PublicCertificate = obj(
  [
    'id',
    'name',
    'imageUrl',
    'metadata',
    'provenance',
    'status',
    'burned',
    'tokenId',
    'transactionHash',
    'blockNumber',
  ],
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
    issuer: nullable(
      obj(['name', 'website', 'domain', 'domainVerified'], {
        name: str(100),
        website: str(2048),
        domain: str(300),
        domainVerified: bool,
      }),
    ),
  },
  'A certificate as anyone may read it (spec › Public read)',
);

const WarrantyTemplate = obj(['id', 'name', 'fields'], {
  id: str(64),
  name: str(200),
  fields: list(
    obj(['name', 'label', 'type', 'required', 'description'], {
      name: str(64),
      label: str(200),
      type: { type: 'string', enum: ['select', 'date', 'text', 'textarea', 'url'] },
      required: bool,
      options: list(str(64), 50),
      description: str(500),
    }),
    100,
  ),
  createdAt: time,
});

/** The certificate as a voucher page shows it (certificate-vouchers service `getPublic`). */
const VoucherCertificate = obj(
  ['id', 'name', 'imageUrl', 'metadata', 'status', 'tokenId', 'transactionHash', 'blockNumber'],
  {
    id: str(64),
    name: str(200),
    imageUrl: nullable(str(2048)),
    metadata: freeObject('The certificate’s metadata as minted'),
    status: str(32),
    tokenId: nullable(int()),
    transactionHash: nullable(str(66)),
    blockNumber: nullable(int()),
  },
);

const CertificateVoucher = obj(
  [
    'id',
    'url',
    'referenceNumber',
    'metadata',
    'certificateId',
    'status',
    'expiresAt',
    'createdAt',
    'livemode',
  ],
  {
    id: str(64),
    url: str(2048),
    referenceNumber: str(255),
    metadata: freeObject('What the issuer attached'),
    certificateId: str(64),
    status: str(32),
    expiresAt: time,
    createdAt: time,
    claimedAt: nullable(time),
    lineItemGid: nullable(str(255)),
    tokenId: nullable(int()),
    transactionHash: nullable(str(66)),
    blockNumber: nullable(int()),
    livemode: bool,
  },
  'A certificate voucher (never its recipient’s contact data)',
);

const claim = obj(
  ['voucherId', 'status', 'voucherStatus', 'transactionHash', 'blockNumber', 'certificateId', 'replayed'],
  {
    voucherId: str(64),
    status: { type: 'string', enum: ['confirmed', 'pending'], description: 'The chain transfer' },
    voucherStatus: str(32),
    transactionHash: nullable(str(66)),
    blockNumber: nullable(int()),
    toAddress: str(64),
    certificateId: str(64),
    replayed: bool,
  },
);

type Success = {
  status: string;
  description: string;
  schema?: unknown;
  also?: [string, string][];
};

export const SUCCESS_CERTIFICATES: Record<string, Success> = {
  'GET /api/certificate/public/{id}': {
    status: '200',
    description: 'The certificate with its provenance',
    schema: PublicCertificate,
  },
  'GET /api/certificate/metadata/{tokenId}': {
    status: '200',
    description: 'ERC-721 metadata JSON',
    schema: obj(['name', 'description', 'external_url', 'attributes'], {
      name: str(200),
      description: str(5000),
      image: str(2048),
      external_url: str(2048),
      attributes: list(
        obj(['trait_type', 'value'], {
          trait_type: str(100),
          value: { type: ['string', 'number'], maxLength: 10_000, minimum: -1e308, maximum: 1e308 },
        }),
        200,
      ),
    }),
  },

  'POST /api/enterprise/templates/init-warranty': {
    status: '200',
    description: 'The warranty template existed already',
    schema: WarrantyTemplate,
    also: [['201', 'The warranty template was created']],
  },
  'GET /api/enterprise/templates/{id}': {
    status: '200',
    description: 'The template',
    schema: WarrantyTemplate,
  },
  'GET /api/certificates/vouchers/{id}': {
    status: '200',
    description: 'The voucher and its certificate',
    schema: obj(['success', 'data'], {
      success: yes,
      data: obj(['voucher', 'certificate'], {
        voucher: CertificateVoucher,
        certificate: VoucherCertificate,
      }),
    }),
  },
  'POST /api/certificates/vouchers/{id}/claim': {
    status: '200',
    description: 'Claimed: the transfer is confirmed on chain',
    schema: obj(['success', 'data'], { success: yes, data: claim }),
    also: [['202', 'Claimed: the transfer is on its way (`status: pending`)']],
  },
};
