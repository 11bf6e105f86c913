// The verification report: one entry per check, an overall status and plain-language notes.

/**
 * Checks, in the order they are reported:
 * - `bundle_format`: the file is a `hallmark-proof-bundle/1`.
 * - `issuer_did`: the issuer's DID document, resolved live (passed) or, when the issuer's domain
 *   cannot be reached, taken from the bundle's snapshot (unknown, with a note).
 * - `credential_signature`: the credential's Data Integrity proof (ecdsa-rdfc-2019) verifies
 *   with a key the issuer's DID document lists for assertions.
 * - `credential_matches_bundle`: the signed credential names this certificate, token, contract,
 *   chain, metadata and issuer.
 * - `metadata_hash`: the hash recomputed from the bundle's metadata equals the signed one.
 * - `chain_id`: the RPC serves the chain the certificate was minted on.
 * - `mint_transaction`: the mint transaction exists on that chain, succeeded, is in the recorded
 *   block and recorded this batch (key, Merkle root, token range) on the contract.
 * - `merkle_proof`: the recomputed metadata hash is a leaf of the batch's Merkle root anchored on
 *   chain (the contract's `verifyCertificate`, and the root of the mint's `BatchMinted` event).
 * - `token`: the token exists (not burned) and who holds it.
 * - `status_list`: the issuer's revocation status list (fetched live, its signature checked)
 *   does not revoke the credential; unknown when it cannot be fetched.
 * - `image`: the image file given hashes to the certified sha256 (skipped without an image).
 */
export type CheckName =
  | 'bundle_format'
  | 'issuer_did'
  | 'credential_signature'
  | 'credential_matches_bundle'
  | 'metadata_hash'
  | 'chain_id'
  | 'mint_transaction'
  | 'merkle_proof'
  | 'token'
  | 'status_list'
  | 'image';

/** passed / failed; unknown: could not be decided (a server unreachable); skipped: nothing to check. */
export type CheckResult = 'passed' | 'failed' | 'unknown' | 'skipped';

export interface Check {
  name: CheckName;
  result: CheckResult;
  /** One plain sentence: what was found. */
  detail: string;
  /** Set on a failure that means revoked (a burned token, a set status bit), not forged. */
  revoked?: true;
}

/**
 * - `valid`: every required check passed: the certificate is genuine and current.
 * - `revoked`: genuine, but its token is burned or its issuer revoked it in the status list.
 * - `invalid`: a check failed: tampered, not what it claims, or not a proof bundle.
 * - `unknown`: nothing failed, but a required check could not be made (e.g. the RPC is down).
 */
export type VerificationStatus = 'valid' | 'revoked' | 'invalid' | 'unknown';

export interface VerificationReport {
  /** True exactly when `status` is `valid`. */
  verified: boolean;
  status: VerificationStatus;
  checks: Check[];
  /** Things the reader should know even when verified (e.g. "issuer domain unreachable"). */
  notes: string[];
  /** What the bundle certifies, when it could be read. */
  certificate: {
    id: string;
    name: string;
    issuer: string;
    tokenId: string;
    contract: string;
    chainId: string;
    /** The token's current holder, when the chain answered and the token exists. */
    owner: string | null;
  } | null;
}

/** Checks whose `unknown` does not keep a certificate from `valid` (advisory: they have a fallback). */
const ADVISORY: ReadonlySet<CheckName> = new Set(['issuer_did', 'status_list', 'image']);
export function overallStatus(checks: readonly Check[]): VerificationStatus {
  const failed = checks.filter((c) => c.result === 'failed');
  if (failed.some((c) => !c.revoked)) return 'invalid';
  if (failed.length) return 'revoked';
  if (checks.some((c) => c.result === 'unknown' && !ADVISORY.has(c.name))) return 'unknown';
  return 'valid';
}
