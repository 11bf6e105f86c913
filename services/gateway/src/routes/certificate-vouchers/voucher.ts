// A certificate voucher as the API shows it (never its recipient's contact data), and the
// certificate beside it as the voucher's page reads it (the service's `getPublic`). Inline
// schemas, as the document has always shown them.
import type { CertificateVoucher as VoucherRecord } from '@hallmark/proto/certificates/v1/vouchers';
import { bool, int, nullable, str, time, Type, type Static } from '../../endpoint/schema.js';
import { freeObject } from '../certificates/certificate.js';

export const VoucherCertificate = Type.Object({
  id: str(64),
  name: str(200),
  imageUrl: nullable(str(2048)),
  metadata: freeObject('The certificate’s metadata as minted'),
  status: str(32),
  tokenId: nullable(int()),
  transactionHash: nullable(str(66)),
  blockNumber: nullable(int()),
});

export const CertificateVoucher = Type.Object(
  {
    id: str(64),
    url: str(2048),
    referenceNumber: str(255),
    metadata: freeObject('What the issuer attached'),
    certificateId: str(64),
    status: str(32),
    expiresAt: time,
    createdAt: time,
    claimedAt: Type.Optional(nullable(time)),
    lineItemGid: Type.Optional(nullable(str(255))),
    tokenId: Type.Optional(nullable(int())),
    transactionHash: Type.Optional(nullable(str(66))),
    blockNumber: Type.Optional(nullable(int())),
    livemode: bool,
  },
  { description: 'A certificate voucher (never its recipient’s contact data)' },
);

export function presentVoucher(v: VoucherRecord): Static<typeof CertificateVoucher> {
  return {
    id: v.id,
    url: v.url,
    referenceNumber: v.reference_number,
    metadata: JSON.parse(v.metadata_json || '{}') as Record<string, unknown>,
    certificateId: v.certificate_id,
    status: v.status,
    expiresAt: v.expires_at,
    createdAt: v.created_at,
    claimedAt: v.claimed_at ?? null,
    lineItemGid: v.line_item_gid ?? null,
    tokenId: v.token_id ?? null,
    transactionHash: v.transaction_hash ?? null,
    blockNumber: v.block_number ?? null,
    livemode: v.livemode,
  };
}
