// The credential of a certificate (VCDM 2.0, docs/credentials.md › The credential): its subject
// is the certificate as minted — the exact metadata object whose hash is the batch's Merkle
// leaf, that hash, the token, contract and chain — and its status entry the certificate's bit
// in its enterprise's revocation list. Pure: the proof is added by ./proof.ts.
import { getAddress } from 'ethers';
import type { CertificateRecord } from '../../domain/certificate.js';
import { CREDENTIAL_CONTEXTS } from './context.js';

export interface CredentialStatusEntry {
  id: string;
  type: 'BitstringStatusListEntry';
  statusPurpose: 'revocation';
  statusListIndex: string;
  statusListCredential: string;
}

export interface CredentialSubject {
  id: string;
  type: 'CertifiedProduct';
  certificateId: string;
  name: string;
  description?: string;
  image?: string;
  imageSha256?: string;
  metadata: Record<string, unknown>;
  metadataHash: string;
  tokenId: string;
  contract: string;
  chainId: string;
  referenceNumber?: string;
  gtin?: string;
  serial?: string;
}

export interface UnsignedCredential {
  '@context': typeof CREDENTIAL_CONTEXTS;
  id: string;
  type: ['VerifiableCredential', 'CertificateOfAuthenticity'];
  issuer: string;
  validFrom: string;
  credentialSubject: CredentialSubject;
  credentialStatus: CredentialStatusEntry;
}

/** Everything a credential says beyond the certificate record, fixed when it is allocated. */
export interface CredentialFacts {
  /** `urn:uuid:<v4>`, stored. */
  id: string;
  issuerDid: string;
  /** When the certificate was minted (its `minted` provenance entry). */
  mintedAt: Date;
  contract: string;
  chainId: bigint | string;
  statusListId: string;
  statusIndex: number;
  referenceNumber?: string | null;
  publicUrl: string;
}

/**
 * The object whose hash was minted: the stored metadata without the fields the service adds
 * after minting (`tokenId`, `warranty`), as verify/service.ts recomputes it.
 */
export function hashedMetadata(c: CertificateRecord): Record<string, unknown> {
  const { tokenId: _tokenId, warranty: _warranty, ...metadata } = c.metadata;
  return metadata;
}

/** The image hash anchored in the metadata (`metadata.image.sha256`), lower-case hex, or null. */
export function anchoredImageSha256(c: CertificateRecord): string | null {
  const image = c.metadata.image as { sha256?: unknown } | undefined;
  return typeof image?.sha256 === 'string' && /^[0-9a-fA-F]{64}$/.test(image.sha256)
    ? image.sha256.toLowerCase()
    : null;
}

const base = (publicUrl: string) => publicUrl.replace(/\/+$/, '');

/** The public URL of a status list credential. */
export const statusListUrl = (publicUrl: string, listId: string) =>
  `${base(publicUrl)}/api/status-lists/${encodeURIComponent(listId)}`;

/** ISO 8601 to the second, UTC (`2026-01-02T03:04:05Z`). */
export const isoSeconds = (d: Date) => d.toISOString().replace(/\.\d{3}Z$/, 'Z');

const text = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/** The unsigned credential of a minted certificate. */
export function buildCredential(c: CertificateRecord, f: CredentialFacts): UnsignedCredential {
  if (c.tokenId === null) throw new Error(`certificate ${c.id} is not minted`);
  const metadata = hashedMetadata(c);
  const imageSha256 = anchoredImageSha256(c);
  const listUrl = statusListUrl(f.publicUrl, f.statusListId);
  const subject: CredentialSubject = {
    id: `${base(f.publicUrl)}/verify/${encodeURIComponent(c.id)}`,
    type: 'CertifiedProduct',
    certificateId: c.id,
    name: c.name,
    ...(text(metadata.description) ? { description: text(metadata.description) } : {}),
    ...(c.imageUrl ? { image: c.imageUrl } : {}),
    ...(imageSha256 ? { imageSha256 } : {}),
    metadata,
    metadataHash: c.metadataHash,
    tokenId: c.tokenId.toString(),
    contract: getAddress(f.contract),
    chainId: f.chainId.toString(),
    ...(f.referenceNumber ? { referenceNumber: f.referenceNumber } : {}),
    ...(c.gtin ? { gtin: c.gtin } : {}),
    ...(c.serial ? { serial: c.serial } : {}),
  };
  return {
    '@context': CREDENTIAL_CONTEXTS,
    id: f.id,
    type: ['VerifiableCredential', 'CertificateOfAuthenticity'],
    issuer: f.issuerDid,
    validFrom: isoSeconds(f.mintedAt),
    credentialSubject: subject,
    credentialStatus: {
      id: `${listUrl}#${f.statusIndex}`,
      type: 'BitstringStatusListEntry',
      statusPurpose: 'revocation',
      statusListIndex: String(f.statusIndex),
      statusListCredential: listUrl,
    },
  };
}
