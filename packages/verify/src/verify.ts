// verifyBundle: every check of a proof bundle, with only a chain RPC URL (and, when reachable,
// the issuer's DID document and status list): see report.ts for what each check means.
import { BundleFormatError, parseBundle, type ProofBundle } from './bundle.js';
import { chainChecks } from './checks/chain.js';
import { checkImage, checkMetadataHash, checkSubject, recomputedHash } from './checks/content.js';
import { checkSignature, checkStatusList, issuerOf, resolveIssuer } from './checks/credential.js';
import { didWebResolver, type DidResolver } from './loader.js';
import { overallStatus, type Check, type CheckName, type VerificationReport } from './report.js';
import { Rpc } from './rpc.js';

export interface VerifyOptions {
  /** A JSON-RPC URL of the chain the certificate was minted on (any node or provider). */
  rpcUrl: string;
  /** The certificate's image file, to check against the certified sha256. */
  image?: Uint8Array;
  /** fetch for the RPC, the issuer's DID document and the status list (default: the global one). */
  fetch?: typeof fetch;
  /** The time the credential's validity is judged at (default: now). */
  now?: Date;
  /** Resolves the issuer's DID live (default: did:web over HTTPS; http for localhost only). */
  resolveDid?: DidResolver;
  /** Give up on a server after this long (default 10 s). */
  timeoutMs?: number;
}

const ORDER: CheckName[] = [
  'bundle_format',
  'issuer_did',
  'credential_signature',
  'credential_matches_bundle',
  'metadata_hash',
  'chain_id',
  'mint_transaction',
  'merkle_proof',
  'token',
  'status_list',
  'image',
];

/** Reads and verifies a proof bundle (the parsed JSON or its text). Never throws for a bad bundle. */
export async function verifyBundle(input: unknown, options: VerifyOptions): Promise<VerificationReport> {
  let bundle: ProofBundle;
  try {
    bundle = parseBundle(input);
  } catch (err) {
    if (!(err instanceof BundleFormatError)) throw err;
    return {
      verified: false,
      status: 'invalid',
      checks: [{ name: 'bundle_format', result: 'failed', detail: err.message }],
      notes: [],
      certificate: null,
    };
  }
  const doFetch = options.fetch ?? globalThis.fetch.bind(globalThis);
  const timeoutMs = options.timeoutMs ?? 10_000;
  const resolveDid = options.resolveDid ?? didWebResolver({ fetch: doFetch, timeoutMs });
  const notes: string[] = [];
  const hash = recomputedHash(bundle);

  const credentialSide = (async (): Promise<Check[]> => {
    const issuer = await resolveIssuer(bundle, resolveDid);
    if (issuer.note) notes.push(issuer.note);
    const [signature, status] = await Promise.all([
      checkSignature(bundle.credential, issuer.document, options.now),
      checkStatusList(bundle.credential, issuer.document, doFetch, timeoutMs),
    ]);
    if (status.note) notes.push(status.note);
    return [issuer.check, signature, status.check];
  })();
  const chainSide = chainChecks(bundle, new Rpc(options.rpcUrl, doFetch, timeoutMs), hash);
  const [credentialChecks, chain, image] = await Promise.all([
    credentialSide,
    chainSide,
    checkImage(bundle, options.image),
  ]);

  const checks = [
    {
      name: 'bundle_format',
      result: 'passed',
      detail: `A ${bundle.format} of certificate ${bundle.certificateId}, made ${bundle.createdAt}.`,
    } as Check,
    ...credentialChecks,
    checkSubject(bundle),
    checkMetadataHash(bundle, hash),
    ...chain.checks,
    image,
  ].sort((a, b) => ORDER.indexOf(a.name) - ORDER.indexOf(b.name));
  const status = overallStatus(checks);
  return {
    verified: status === 'valid',
    status,
    checks,
    notes,
    certificate: {
      id: bundle.certificateId,
      name: bundle.metadata.name,
      issuer: issuerOf(bundle.credential),
      tokenId: bundle.chain.tokenId,
      contract: bundle.chain.contract,
      chainId: bundle.chain.chainId,
      owner: chain.owner,
    },
  };
}
