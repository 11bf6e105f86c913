// A proof bundle built the way Hallmark builds one, with no Hallmark process: the real
// HallmarkCertificates contract deployed on anvil and a batch minted whose Merkle root covers the
// certificates' metadata (the certificates service's own chain helpers), a freshly generated
// P-256 issuer key signing VCDM 2.0 credentials in the design's format, and a local HTTP server
// standing in for the issuer's domain (did.json) and Hallmark's status lists.
import { freePort, startAnvil, type AnvilHandle } from '@hallmark/devstack';
import { DataIntegrityProof } from '@digitalbazaar/data-integrity';
import * as EcdsaMultikey from '@digitalbazaar/ecdsa-multikey';
import { cryptosuite as ecdsaRdfc2019 } from '@digitalbazaar/ecdsa-rdfc-2019-cryptosuite';
import * as vc from '@digitalbazaar/vc';
import { createCredential, createList, type StatusList } from '@digitalbazaar/vc-bitstring-status-list';
import { createHash, randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { JsonRpcProvider } from 'ethers';
import {
  batchKeyOf,
  buildBatchTree,
  deployCertificates,
  type CertificatesContract,
} from '../../../services/certificates/src/chain/contract.js';
import { anvilWallet, localProvider } from '../../../services/certificates/src/chain/dev-accounts.js';
import { metadataHashOf } from '../../../services/certificates/src/domain/certificate.js';
import {
  CREDENTIAL_CONTEXT,
  createDocumentLoader,
  fixedDidResolver,
  type DidDocument,
  type ProofBundle,
} from '../src/index.js';

export const IMAGE = Buffer.from('a certified picture of a gold watch');
export const IMAGE_SHA256 = createHash('sha256').update(IMAGE).digest('hex');

export interface Item {
  name: string;
  imageUrl: string | null;
  metadata: Record<string, unknown>;
}

export const ITEMS: Item[] = [
  {
    name: 'Gold Watch',
    imageUrl: 'https://img.brand.example/watch.png',
    metadata: {
      name: 'Gold Watch',
      description: 'A gold watch',
      category: 'Watches',
      edition: 1,
      'weird key!': [1, { b: 2, a: 1 }],
    },
  },
  { name: 'Silver Ring', imageUrl: null, metadata: { name: 'Silver Ring', artist: 'Ada' } },
  { name: 'Bronze Vase', imageUrl: null, metadata: { name: 'Bronze Vase' } },
];

/** The issuer's HTTP host: serves /issuers/<id>/did.json and /api/status-lists/<id>; a path can be taken down. */
export interface IssuerHost {
  origin: string;
  did: string;
  didDocument: DidDocument;
  statusListUrl: string;
  /** Paths whose requests get their connection dropped (an unreachable server). */
  down: Set<string>;
  /** Bodies served instead of the real ones, by path (a forged list, a changed DID document). */
  overrides: Map<string, unknown>;
  /** Sets a status bit and re-signs the list. */
  revoke(index: number): Promise<void>;
  close(): Promise<void>;
}

export interface Fixture {
  anvil: AnvilHandle;
  provider: JsonRpcProvider;
  certs: CertificatesContract;
  host: IssuerHost;
  /** The bundle of ITEMS[i] (a fresh copy each call). */
  bundle(i: number): ProofBundle;
  /** Signs a credential with the issuer key (the same loader a verifier uses). */
  sign(credential: Record<string, unknown>): Promise<Record<string, unknown>>;
  /** Burns ITEMS[i]'s token (its holder signs). */
  burn(i: number): Promise<void>;
  stop(): Promise<void>;
}

const HOLDER_INDEX = 3;

export async function buildFixture(): Promise<Fixture> {
  const anvilLog = path.join(tmpdir(), `hallmark-verify-anvil-${process.pid}-${randomUUID()}.log`);
  const anvil = await startAnvil({ port: await freePort(), logFile: anvilLog });
  const provider = localProvider(anvil.rpcUrl, anvil.chainId);
  const deployer = anvilWallet(0, provider);
  const holder = anvilWallet(HOLDER_INDEX, provider);
  const certs = await deployCertificates(deployer, {
    baseURI: 'https://hallmark.test/api/certificate/metadata/',
  });

  // The batch: metadata hashes by the certificates service's own function, its Merkle tree, the mint.
  const hashes = ITEMS.map((i) => metadataHashOf(i.name, i.imageUrl, i.metadata));
  const tree = buildBatchTree(hashes);
  const batchKey = batchKeyOf(`verify-fixture-${randomUUID()}`);
  const tx = await certs.mintBatch({
    to: holder.address,
    quantity: ITEMS.length,
    merkleRoot: tree.root,
    batchKey,
  });
  const receipt = (await tx.wait())!;
  const [minted] = certs.parseBatchMinted(receipt);

  // The issuer: a P-256 key under a Hallmark-hosted did:web on a local host.
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const did = `did:web:127.0.0.1%3A${port}:issuers:ent_fixture`;
  const key = await EcdsaMultikey.generate({ curve: 'P-256', id: `${did}#key-1`, controller: did });
  const didDocument: DidDocument = {
    '@context': ['https://www.w3.org/ns/did/v1', 'https://w3id.org/security/multikey/v1'],
    id: did,
    verificationMethod: [(await key.export({ publicKey: true, includeContext: false })) as never],
    assertionMethod: [`${did}#key-1`],
  };
  const loader = createDocumentLoader({ resolveDid: fixedDidResolver(didDocument) });
  const sign = (credential: Record<string, unknown>) =>
    vc.issue({
      credential,
      suite: new DataIntegrityProof({ signer: key.signer(), cryptosuite: ecdsaRdfc2019 }),
      documentLoader: loader,
    });

  const statusListUrl = `${origin}/api/status-lists/sl_fixture`;
  const list: StatusList = await createList({ length: 131_072 });
  const signList = async () =>
    sign({
      ...(await createCredential({ id: statusListUrl, list, statusPurpose: 'revocation' })),
      issuer: did,
      validFrom: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
    });
  let signedList = await signList();

  const down = new Set<string>();
  const overrides = new Map<string, unknown>();
  const server: Server = createServer((req, res) => {
    const path = req.url ?? '/';
    if (down.has(path)) return void req.socket.destroy();
    const body = overrides.has(path)
      ? overrides.get(path)
      : path === '/issuers/ent_fixture/did.json'
        ? didDocument
        : path === '/api/status-lists/sl_fixture'
          ? signedList
          : null;
    if (!body) return void res.writeHead(404).end();
    res
      .writeHead(200, { 'content-type': 'application/json', 'access-control-allow-origin': '*' })
      .end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));

  const credentials = await Promise.all(
    ITEMS.map((item, i) => {
      const tokenId = String(minted!.firstTokenId + BigInt(i));
      const certificateId = `cert_fixture${i}`;
      return sign({
        '@context': CREDENTIAL_CONTEXT,
        id: `urn:uuid:${randomUUID()}`,
        type: ['VerifiableCredential', 'CertificateOfAuthenticity'],
        issuer: did,
        validFrom: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
        credentialSubject: {
          id: `${origin}/verify/${certificateId}`,
          type: 'CertifiedProduct',
          certificateId,
          name: item.name,
          ...(item.metadata.description ? { description: item.metadata.description } : {}),
          ...(item.imageUrl ? { image: item.imageUrl, imageSha256: IMAGE_SHA256 } : {}),
          metadata: item.metadata,
          metadataHash: hashes[i],
          tokenId,
          contract: certs.address,
          chainId: String(anvil.chainId),
          referenceNumber: `REF-${i}`,
        },
        credentialStatus: {
          id: `${statusListUrl}#${i}`,
          type: 'BitstringStatusListEntry',
          statusPurpose: 'revocation',
          statusListIndex: String(i),
          statusListCredential: statusListUrl,
        },
      });
    }),
  );

  const bundles = ITEMS.map((item, i): ProofBundle => ({
    format: 'hallmark-proof-bundle/1',
    certificateId: `cert_fixture${i}`,
    credential: credentials[i] as never,
    metadata: { name: item.name, imageUrl: item.imageUrl, metadata: item.metadata, hash: hashes[i]! },
    merkle: { root: tree.root, batchKey, index: i, proof: tree.proof(i) },
    mint: { transactionHash: receipt.hash, blockNumber: receipt.blockNumber },
    chain: {
      chainId: String(anvil.chainId),
      contract: certs.address,
      tokenId: String(minted!.firstTokenId + BigInt(i)),
    },
    image: item.imageUrl ? { sha256: IMAGE_SHA256, url: item.imageUrl } : null,
    issuer: { did, didDocument, snapshotAt: new Date().toISOString() },
    createdAt: new Date().toISOString(),
  }));

  return {
    anvil,
    provider,
    certs,
    sign,
    host: {
      origin,
      did,
      didDocument,
      statusListUrl,
      down,
      overrides,
      revoke: async (index) => {
        list.setStatus(index, true);
        signedList = await signList();
      },
      close: () => new Promise((resolve) => server.close(() => resolve())),
    },
    // Through JSON: the bundle as a file holds it (no object shared between its parts).
    bundle: (i) => JSON.parse(JSON.stringify(bundles[i])) as ProofBundle,
    burn: async (i) => {
      await (await certs.connect(holder).burn(bundles[i]!.chain.tokenId)).wait();
    },
    stop: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      provider.destroy();
      await anvil.stop();
      rmSync(anvilLog, { force: true });
    },
  };
}
