// The rows of `certificates` and `provenance` as the stores read them, and their mapping to
// the domain records (shared by the certificate, transfer and burn stores).
import type {
  CertificateRecord,
  CertificateStatus,
  ProvenanceKind,
  ProvenanceRecord,
} from './domain/certificate.js';
import { stolenFlagOf } from './domain/stolen.js';
import type { Warranty } from './domain/warranty.js';

export interface CertificateRow {
  id: string;
  enterprise_id: string;
  livemode: boolean;
  batch_id: string;
  position: number;
  token_id: string | null;
  name: string;
  image_url: string | null;
  metadata: Record<string, unknown>;
  metadata_hash: string;
  holder_address: string;
  status: CertificateStatus;
  transaction_hash: string | null;
  block_number: string | null;
  gtin?: string | null;
  serial?: string | null;
  warranty?: Warranty | null;
  /** The open lost/stolen report (migration 3321), null when there is none. */
  stolen?: unknown;
  created_at: Date;
  updated_at: Date;
}

export interface ProvenanceRow {
  certificate_id: string;
  kind: ProvenanceKind;
  actor: string | null;
  from_address: string | null;
  to_address: string | null;
  transaction_hash: string | null;
  block_number: string | null;
  at: Date;
}

export function certificateFromRow(r: CertificateRow): CertificateRecord {
  return {
    id: r.id,
    enterpriseId: r.enterprise_id,
    livemode: r.livemode,
    batchId: r.batch_id,
    position: r.position,
    tokenId: r.token_id === null ? null : BigInt(r.token_id),
    name: r.name,
    imageUrl: r.image_url,
    metadata: r.metadata,
    metadataHash: r.metadata_hash,
    holderAddress: r.holder_address,
    status: r.status,
    transactionHash: r.transaction_hash,
    blockNumber: r.block_number === null ? null : Number(r.block_number),
    gtin: r.gtin ?? null,
    serial: r.serial ?? null,
    warranty: r.warranty ?? null,
    stolen: stolenFlagOf(r.stolen),
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

export function provenanceFromRow(r: ProvenanceRow): ProvenanceRecord {
  return {
    kind: r.kind,
    actor: r.actor,
    from: r.from_address,
    to: r.to_address,
    transactionHash: r.transaction_hash,
    blockNumber: r.block_number === null ? null : Number(r.block_number),
    at: r.at,
  };
}
