// The proof bundle (`hallmark-proof-bundle/1`): everything needed to verify one certificate
// without Hallmark. `parseBundle` checks its shape and says what is wrong with a file that is
// not one, so a malformed file is told apart from a certificate that fails its checks.
import type { DidDocument } from './loader.js';

export const BUNDLE_FORMAT = 'hallmark-proof-bundle/1';

export interface ProofBundle {
  format: typeof BUNDLE_FORMAT;
  certificateId: string;
  /** The signed VCDM 2.0 credential (DataIntegrityProof, ecdsa-rdfc-2019). */
  credential: Credential;
  /** The Merkle leaf preimage: keccak256(canonicalJson({name, imageUrl, metadata})) = hash. */
  metadata: { name: string; imageUrl: string | null; metadata: Record<string, unknown>; hash: string };
  /** The certificate's leaf in its batch's tree: position `index`, proof to `root`. */
  merkle: { root: string; batchKey: string; index: number; proof: string[] };
  mint: { transactionHash: string; blockNumber: number };
  chain: { chainId: string; contract: string; tokenId: string };
  image: { sha256: string; url: string } | null;
  issuer: { did: string; didDocument: DidDocument; snapshotAt: string };
  createdAt: string;
}

export interface Credential {
  '@context': unknown[];
  id?: string;
  type: string[];
  issuer: string | { id: string };
  validFrom?: string;
  credentialSubject: CredentialSubject;
  credentialStatus?: {
    id?: string;
    type: string;
    statusPurpose: string;
    statusListIndex: string;
    statusListCredential: string;
  };
  proof?: Record<string, unknown>;
  [k: string]: unknown;
}

export interface CredentialSubject {
  id?: string;
  certificateId?: string;
  name?: string;
  image?: string;
  imageSha256?: string;
  metadata?: Record<string, unknown>;
  metadataHash?: string;
  tokenId?: string;
  contract?: string;
  chainId?: string;
  [k: string]: unknown;
}

/** The file is not a Hallmark proof bundle; `problems` says each way it is not. */
export class BundleFormatError extends Error {
  constructor(readonly problems: string[]) {
    super(`Not a Hallmark proof bundle: ${problems.join('; ')}`);
    this.name = 'BundleFormatError';
  }
}

const HEX32 = /^0x[0-9a-fA-F]{64}$/;
const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const DECIMAL = /^(0|[1-9][0-9]*)$/;

const isObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

/** Checks the shape of a parsed bundle (or its JSON text); throws BundleFormatError. */
export function parseBundle(input: unknown): ProofBundle {
  let value = input;
  if (typeof input === 'string') {
    try {
      value = JSON.parse(input);
    } catch (err) {
      throw new BundleFormatError([`the file is not JSON (${(err as Error).message})`]);
    }
  }
  const problems: string[] = [];
  const need = (ok: boolean, what: string) => {
    if (!ok) problems.push(what);
  };
  if (!isObject(value)) throw new BundleFormatError(['the file does not hold a JSON object']);
  const b = value;
  if (b.format !== BUNDLE_FORMAT) {
    throw new BundleFormatError([`"format" is ${JSON.stringify(b.format)}, expected "${BUNDLE_FORMAT}"`]);
  }
  need(typeof b.certificateId === 'string' && b.certificateId !== '', '"certificateId" must be a string');
  const cred = b.credential;
  need(isObject(cred), '"credential" must be an object');
  if (isObject(cred)) {
    need(Array.isArray(cred['@context']), '"credential.@context" must be an array');
    need(Array.isArray(cred.type), '"credential.type" must be an array');
    need(
      typeof cred.issuer === 'string' || (isObject(cred.issuer) && typeof cred.issuer.id === 'string'),
      '"credential.issuer" must be a DID',
    );
    need(isObject(cred.credentialSubject), '"credential.credentialSubject" must be an object');
    need(isObject(cred.proof), '"credential.proof" is missing: the credential is not signed');
  }
  const md = b.metadata;
  need(isObject(md), '"metadata" must be an object');
  if (isObject(md)) {
    need(typeof md.name === 'string', '"metadata.name" must be a string');
    need(
      md.imageUrl === null || typeof md.imageUrl === 'string',
      '"metadata.imageUrl" must be a string or null',
    );
    need(isObject(md.metadata), '"metadata.metadata" must be an object');
    need(typeof md.hash === 'string' && HEX32.test(md.hash), '"metadata.hash" must be 32 bytes of 0x hex');
  }
  const mk = b.merkle;
  need(isObject(mk), '"merkle" must be an object');
  if (isObject(mk)) {
    need(typeof mk.root === 'string' && HEX32.test(mk.root), '"merkle.root" must be 32 bytes of 0x hex');
    need(
      typeof mk.batchKey === 'string' && HEX32.test(mk.batchKey),
      '"merkle.batchKey" must be 32 bytes of 0x hex',
    );
    need(
      Number.isSafeInteger(mk.index) && (mk.index as number) >= 0,
      '"merkle.index" must be a whole number',
    );
    need(
      Array.isArray(mk.proof) && mk.proof.every((p) => typeof p === 'string' && HEX32.test(p)),
      '"merkle.proof" must be a list of 32-byte 0x hex values',
    );
  }
  const mint = b.mint;
  need(isObject(mint), '"mint" must be an object');
  if (isObject(mint)) {
    need(
      typeof mint.transactionHash === 'string' && HEX32.test(mint.transactionHash),
      '"mint.transactionHash" must be a 32-byte 0x hex transaction hash',
    );
    need(
      Number.isSafeInteger(mint.blockNumber) && (mint.blockNumber as number) >= 0,
      '"mint.blockNumber" must be a block number',
    );
  }
  const chain = b.chain;
  need(isObject(chain), '"chain" must be an object');
  if (isObject(chain)) {
    need(
      typeof chain.chainId === 'string' && DECIMAL.test(chain.chainId),
      '"chain.chainId" must be a decimal string',
    );
    need(
      typeof chain.contract === 'string' && ADDRESS.test(chain.contract),
      '"chain.contract" must be an address',
    );
    need(
      typeof chain.tokenId === 'string' && DECIMAL.test(chain.tokenId),
      '"chain.tokenId" must be a decimal string',
    );
  }
  const img = b.image;
  need(
    img === null || img === undefined || (isObject(img) && typeof img.sha256 === 'string'),
    '"image" must be null or {sha256, url}',
  );
  const issuer = b.issuer;
  need(isObject(issuer), '"issuer" must be an object');
  if (isObject(issuer)) {
    need(typeof issuer.did === 'string' && issuer.did.startsWith('did:'), '"issuer.did" must be a DID');
    need(isObject(issuer.didDocument), '"issuer.didDocument" must be the DID document snapshot');
  }
  if (problems.length) throw new BundleFormatError(problems);
  return { ...(b as unknown as ProofBundle), image: (img ?? null) as ProofBundle['image'] };
}
