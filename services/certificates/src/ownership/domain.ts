// Pure rules of proof-of-ownership links and of export to the owner's own wallet
// (docs/resale.md). No I/O: ethers' typed-data hashing and signature recovery are pure.
import { randomBytes } from 'node:crypto';
import { sha256Hex } from '@hallmark/kit/crypto';
import { HallmarkError, invalidParam } from '@hallmark/kit/errors';
import { getAddress, isAddress, verifyTypedData, type TypedDataDomain, type TypedDataField } from 'ethers';

export const DEFAULT_LINK_TTL_HOURS = 72;
export const MAX_LINK_TTL_HOURS = 720;
const TOKEN_RE = /^[A-Za-z0-9_-]{43}$/;

/** A link's lifetime in hours: 0 (unset) → 3 days; 1 to 30 days. */
export function linkTtlHours(requested: number): number {
  if (requested === 0) return DEFAULT_LINK_TTL_HOURS;
  if (!Number.isInteger(requested) || requested < 1 || requested > MAX_LINK_TTL_HOURS)
    throw invalidParam('ttlHours', `ttlHours must be a whole number from 1 to ${MAX_LINK_TTL_HOURS}.`);
  return requested;
}

/** A new link token: 32 random bytes, base64url (43 characters). Shown once. */
export const newLinkToken = (): string => randomBytes(32).toString('base64url');
export const isLinkToken = (t: string): boolean => TOKEN_RE.test(t);
/** The stored form of a link token. */
export const linkTokenHash = (token: string): string => sha256Hex(`ownership-link:${token}`);

export interface OwnershipLinkRecord {
  id: string;
  enterpriseId: string;
  livemode: boolean;
  certificateId: string;
  ownerId: string;
  holderAddress: string;
  expiresAt: Date;
  revokedAt: Date | null;
  createdAt: Date;
}

export type ProofStatus = 'owned' | 'transferred' | 'expired' | 'revoked';

/**
 * What a link proves at `now`: revoked and expired links prove nothing; otherwise whether the
 * certificate is still held by the address the link was made for (a burn counts as moved).
 */
export function proofStatus(
  link: Pick<OwnershipLinkRecord, 'revokedAt' | 'expiresAt' | 'holderAddress'>,
  cert: { holderAddress: string; status: string },
  now: Date,
): ProofStatus {
  if (link.revokedAt) return 'revoked';
  if (link.expiresAt.getTime() <= now.getTime()) return 'expired';
  const same = cert.holderAddress.toLowerCase() === link.holderAddress.toLowerCase();
  return same && cert.status === 'minted' ? 'owned' : 'transferred';
}

export const invalidLink = (): HallmarkError =>
  new HallmarkError('resource_not_found', {
    param: 'token',
    message: 'This ownership link is not known.',
  });

// ---------------------------------------------------------------------------------------------
// Export: the owner proves control of the destination wallet by an EIP-712 signature.

/** Longest an export signature may be valid for. */
export const MAX_EXPORT_DEADLINE_SECONDS = 24 * 3600;
export const EXPORT_DEADLINE_SECONDS = 3600;

export const EXPORT_TYPES: Record<string, TypedDataField[]> = {
  ExportCertificate: [
    { name: 'certificateId', type: 'string' },
    { name: 'tokenId', type: 'uint256' },
    { name: 'to', type: 'address' },
    { name: 'nonce', type: 'uint256' },
    { name: 'deadline', type: 'uint256' },
  ],
};

export interface ExportMessage {
  certificateId: string;
  tokenId: bigint;
  to: string;
  /** The token's permit nonce on chain: it moves with every transfer, so a signature is used once. */
  nonce: bigint;
  deadline: bigint;
}

/** The domain: Hallmark's export on this chain and contract (not the contract's own permit domain). */
export function exportDomain(chainId: bigint, contract: string): TypedDataDomain {
  return { name: 'Hallmark Export', version: '1', chainId, verifyingContract: getAddress(contract) };
}

export function parseDestination(to: string | undefined): string {
  if (!to || !isAddress(to) || !/^0x[0-9a-fA-F]{40}$/.test(to))
    throw invalidParam('toAddress', 'toAddress must be a 0x-prefixed 20-byte address.');
  return getAddress(to);
}

/** eth_signTypedData_v4's argument: what the owner's wallet shows and signs. */
export function exportTypedData(domain: TypedDataDomain, m: ExportMessage) {
  return {
    domain: { ...domain, chainId: Number(domain.chainId) },
    types: {
      EIP712Domain: [
        { name: 'name', type: 'string' },
        { name: 'version', type: 'string' },
        { name: 'chainId', type: 'uint256' },
        { name: 'verifyingContract', type: 'address' },
      ],
      ...EXPORT_TYPES,
    },
    primaryType: 'ExportCertificate',
    message: {
      ...m,
      tokenId: m.tokenId.toString(),
      nonce: m.nonce.toString(),
      deadline: m.deadline.toString(),
    },
  };
}

const badSignature = (message: string) =>
  new HallmarkError('validation_failed', { param: 'signature', message });

/**
 * Refuses unless `signature` is `m.to`'s signature of `m` under `domain`, and `m.deadline` is
 * in the future and at most a day away. Constant-time is not needed: the recovered address is
 * public, and a wrong signature reveals nothing.
 */
export function assertExportSigned(
  domain: TypedDataDomain,
  m: ExportMessage,
  signature: string,
  nowSec: number,
): void {
  if (m.deadline <= BigInt(nowSec)) throw badSignature('The export signature has expired; sign a fresh one.');
  if (m.deadline > BigInt(nowSec + MAX_EXPORT_DEADLINE_SECONDS))
    throw invalidParam('deadline', 'deadline must be at most 24 hours away.');
  let signer: string;
  try {
    signer = verifyTypedData(domain, EXPORT_TYPES, m, signature);
  } catch {
    throw badSignature('signature is not an EIP-712 signature.');
  }
  if (getAddress(signer) !== getAddress(m.to))
    throw badSignature('The signature is not by the wallet the certificate would be exported to.');
}

// ---------------------------------------------------------------------------------------------
// Import: the external holder signs the contract's own TransferPermit to the owner's custodial
// wallet (the contract's transferWithPermit checks it again on chain).

/** The contract's EIP-712 permit domain (chain/contract.ts permitDomain; the contract's constructor). */
export function contractPermitDomain(chainId: bigint, contract: string): TypedDataDomain {
  return { name: 'HallmarkCertificates', version: '1', chainId, verifyingContract: getAddress(contract) };
}

export const IMPORT_TYPES: Record<string, TypedDataField[]> = {
  TransferPermit: [
    { name: 'to', type: 'address' },
    { name: 'tokenId', type: 'uint256' },
    { name: 'nonce', type: 'uint256' },
    { name: 'deadline', type: 'uint256' },
  ],
};

export interface ImportMessage {
  /** The owner's custodial wallet. */
  to: string;
  tokenId: bigint;
  nonce: bigint;
  deadline: bigint;
}

export function importTypedData(domain: TypedDataDomain, m: ImportMessage) {
  return {
    domain: { ...domain, chainId: Number(domain.chainId) },
    types: {
      EIP712Domain: [
        { name: 'name', type: 'string' },
        { name: 'version', type: 'string' },
        { name: 'chainId', type: 'uint256' },
        { name: 'verifyingContract', type: 'address' },
      ],
      ...IMPORT_TYPES,
    },
    primaryType: 'TransferPermit',
    message: {
      to: m.to,
      tokenId: m.tokenId.toString(),
      nonce: m.nonce.toString(),
      deadline: m.deadline.toString(),
    },
  };
}

/** Refuses unless `signature` is the current holder's TransferPermit of `m`, unexpired, ≤ 24 h away. */
export function assertImportSigned(
  domain: TypedDataDomain,
  m: ImportMessage,
  signature: string,
  holder: string,
  nowSec: number,
): void {
  if (m.deadline <= BigInt(nowSec)) throw badSignature('The import permit has expired; sign a fresh one.');
  if (m.deadline > BigInt(nowSec + MAX_EXPORT_DEADLINE_SECONDS))
    throw invalidParam('deadline', 'deadline must be at most 24 hours away.');
  let signer: string;
  try {
    signer = verifyTypedData(domain, IMPORT_TYPES, m, signature);
  } catch {
    throw badSignature('signature is not an EIP-712 signature.');
  }
  if (getAddress(signer) !== getAddress(holder))
    throw badSignature('The permit is not signed by the wallet that holds the certificate.');
}
