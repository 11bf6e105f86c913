// The proof bundle of a certificate (format `hallmark-proof-bundle/1`, docs/credentials.md ›
// The proof bundle): one JSON file with which anyone checks the certificate with a chain RPC
// URL alone — the credential, the hashed metadata and its Merkle proof against the batch root
// on chain, the mint transaction, the chain and contract, the image hash and a snapshot of
// the issuer's DID document. Pure.
import type { CertificateRecord } from '../../domain/certificate.js';
import type { PublicServiceEntry } from '../../domain/service-record.js';
import { anchoredImageSha256, hashedMetadata } from './credential.js';
import type { DidDocument } from './did.js';

export const BUNDLE_FORMAT = 'hallmark-proof-bundle/1';

export interface ProofBundle {
  format: typeof BUNDLE_FORMAT;
  certificateId: string;
  credential: Record<string, unknown>;
  metadata: { name: string; imageUrl: string | null; metadata: Record<string, unknown>; hash: string };
  merkle: { root: string; batchKey: string; index: number; proof: string[] };
  mint: { transactionHash: string; blockNumber: number };
  chain: { chainId: string; contract: string; tokenId: string };
  image: { sha256: string; url: string } | null;
  issuer: { did: string; didDocument: DidDocument; snapshotAt: string };
  /**
   * The service records the owner accepted, as Hallmark served them when the bundle was made
   * (docs/service-records.md): a record of what was done, not part of what the credential signs
   * or the chain anchors (the verifier does not check it).
   */
  serviceHistory: PublicServiceEntry[];
  createdAt: string;
}

export interface BundleFacts {
  credential: Record<string, unknown> & { issuer?: unknown; credentialSubject?: unknown };
  merkleRoot: string;
  batchKey: string;
  proof: string[];
  didDocument: DidDocument;
  now: Date;
}

export function buildBundle(c: CertificateRecord, f: BundleFacts): ProofBundle {
  if (c.tokenId === null || c.transactionHash === null || c.blockNumber === null)
    throw new Error(`certificate ${c.id} is not minted`);
  const subject = f.credential.credentialSubject as { chainId: string; contract: string };
  const sha256 = anchoredImageSha256(c);
  return {
    format: BUNDLE_FORMAT,
    certificateId: c.id,
    credential: f.credential,
    metadata: { name: c.name, imageUrl: c.imageUrl, metadata: hashedMetadata(c), hash: c.metadataHash },
    merkle: { root: f.merkleRoot, batchKey: f.batchKey, index: c.position, proof: f.proof },
    mint: { transactionHash: c.transactionHash, blockNumber: c.blockNumber },
    chain: { chainId: subject.chainId, contract: subject.contract, tokenId: c.tokenId.toString() },
    image: sha256 && c.imageUrl ? { sha256, url: c.imageUrl } : null,
    issuer: { did: String(f.credential.issuer), didDocument: f.didDocument, snapshotAt: f.now.toISOString() },
    serviceHistory: c.serviceHistory ?? [],
    createdAt: f.now.toISOString(),
  };
}
