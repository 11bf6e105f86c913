// The chain's checks, with only an RPC URL: the chain id, the mint transaction and the batch
// it recorded, the Merkle proof of the metadata against the root anchored on chain, the token.
import { StandardMerkleTree } from '@openzeppelin/merkle-tree';
import type { ProofBundle } from '../bundle.js';
import type { Check, CheckName } from '../report.js';
import { certificatesAbi, Rpc, RpcUnreachableError } from '../rpc.js';

const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

interface MintedBatch {
  firstTokenId: bigint;
  quantity: bigint;
  merkleRoot: string;
}

export interface ChainChecks {
  checks: Check[];
  owner: string | null;
}

const CHAIN_CHECKS: CheckName[] = ['chain_id', 'mint_transaction', 'merkle_proof', 'token'];

function allUnknown(detail: string, first?: Check): ChainChecks {
  const checks = CHAIN_CHECKS.map((name): Check => ({ name, result: 'unknown', detail }));
  if (first) checks[0] = first;
  return { checks, owner: null };
}

/** The mint transaction and the BatchMinted event it emitted for this certificate's batch. */
async function checkMint(
  bundle: ProofBundle,
  rpc: Rpc,
): Promise<{ check: Check; batch: MintedBatch | null }> {
  const name = 'mint_transaction';
  const { transactionHash, blockNumber } = bundle.mint;
  const fail = (detail: string) => ({ check: { name, result: 'failed', detail } as Check, batch: null });
  const receipt = await rpc.receipt(transactionHash);
  if (!receipt) return fail(`No transaction ${transactionHash} on this chain.`);
  if (BigInt(receipt.status) !== 1n) return fail(`Transaction ${transactionHash} failed (reverted).`);
  if (BigInt(receipt.blockNumber) !== BigInt(blockNumber)) {
    return fail(
      `Transaction ${transactionHash} is in block ${BigInt(receipt.blockNumber)}, not ${blockNumber}.`,
    );
  }
  const topic = certificatesAbi.getEvent('BatchMinted')!.topicHash;
  const log = receipt.logs.find(
    (l) =>
      same(l.address, bundle.chain.contract) &&
      l.topics[0] === topic &&
      same(l.topics[1] ?? '', bundle.merkle.batchKey),
  );
  if (!log)
    return fail(
      `Transaction ${transactionHash} minted no batch ${bundle.merkle.batchKey} on ${bundle.chain.contract}.`,
    );
  const ev = certificatesAbi.parseLog({ topics: log.topics, data: log.data })!;
  const batch: MintedBatch = {
    firstTokenId: ev.args.firstTokenId as bigint,
    quantity: ev.args.quantity as bigint,
    merkleRoot: ev.args.merkleRoot as string,
  };
  const index = BigInt(bundle.merkle.index);
  if (!same(batch.merkleRoot, bundle.merkle.root)) {
    return fail(
      `The batch was minted with Merkle root ${batch.merkleRoot}, not the bundle's ${bundle.merkle.root}.`,
    );
  }
  if (index >= batch.quantity || batch.firstTokenId + index !== BigInt(bundle.chain.tokenId)) {
    return fail(
      `Position ${index} of the batch (tokens ${batch.firstTokenId}–${batch.firstTokenId + batch.quantity - 1n}) is not token ${bundle.chain.tokenId}.`,
    );
  }
  const last = batch.firstTokenId + batch.quantity - 1n;
  return {
    batch,
    check: {
      name,
      result: 'passed',
      detail: `Transaction ${transactionHash} (block ${blockNumber}) minted tokens ${batch.firstTokenId}–${last} with this batch's Merkle root.`,
    },
  };
}

/** The token's current holder: `null` owner when it does not exist (burned, or never minted). */
async function checkToken(
  bundle: ProofBundle,
  rpc: Rpc,
  minted: boolean,
): Promise<{ check: Check; owner: string | null }> {
  const { contract, tokenId } = bundle.chain;
  const r = await rpc.view(contract, 'ownerOf', [tokenId]);
  if (r.ok) {
    const owner = r.value as string;
    return {
      owner,
      check: { name: 'token', result: 'passed', detail: `Token ${tokenId} exists; held by ${owner}.` },
    };
  }
  const detail =
    r.error === 'ERC721NonexistentToken'
      ? minted
        ? `Token ${tokenId} was minted but no longer exists: it was burned (revoked).`
        : `Token ${tokenId} does not exist on ${contract}.`
      : `Token ${tokenId} could not be read from ${contract}: ${r.error}.`;
  // Burned: the mint proves it existed, so its absence is a revocation, not a forgery.
  const burned = minted && r.error === 'ERC721NonexistentToken';
  return {
    owner: null,
    check: { name: 'token', result: 'failed', detail, ...(burned ? { revoked: true as const } : {}) },
  };
}

/** The recomputed metadata hash against the root the chain holds for the batch. */
async function checkMerkle(
  bundle: ProofBundle,
  rpc: Rpc,
  metadataHash: string,
  batch: MintedBatch | null,
  tokenExists: boolean,
): Promise<Check> {
  const name = 'merkle_proof';
  const { batchKey, index, proof } = bundle.merkle;
  const root = batch?.merkleRoot ?? bundle.merkle.root;
  const leafOk = StandardMerkleTree.verify(
    root,
    ['uint256', 'bytes32'],
    [String(index), metadataHash],
    proof,
  );
  if (tokenExists) {
    const r = await rpc.view(bundle.chain.contract, 'verifyCertificate', [
      bundle.chain.tokenId,
      batchKey,
      metadataHash,
      proof,
    ]);
    if (r.ok && r.value === true && leafOk) {
      return {
        name,
        result: 'passed',
        detail:
          "The contract's verifyCertificate confirms the metadata hash is in the batch's on-chain root.",
      };
    }
    return {
      name,
      result: 'failed',
      detail: `The metadata hash ${metadataHash} is not in the batch's on-chain Merkle root (verifyCertificate answered ${r.ok ? String(r.value) : r.error}).`,
    };
  }
  // A burned token can no longer be asked; the root in its mint's BatchMinted event still can.
  if (!batch)
    return {
      name,
      result: 'failed',
      detail: 'No Merkle root on chain to check against (the mint transaction check failed).',
    };
  return leafOk
    ? {
        name,
        result: 'passed',
        detail: `The metadata hash is in the Merkle root ${root} recorded by the mint transaction.`,
      }
    : {
        name,
        result: 'failed',
        detail: `The metadata hash ${metadataHash} is not in the Merkle root ${root} recorded on chain.`,
      };
}

export async function chainChecks(bundle: ProofBundle, rpc: Rpc, metadataHash: string): Promise<ChainChecks> {
  let chainId: bigint;
  try {
    chainId = await rpc.chainId();
  } catch (err) {
    if (err instanceof RpcUnreachableError) return allUnknown(`Not checked: ${err.message}.`);
    throw err;
  }
  const expected = BigInt(bundle.chain.chainId);
  if (chainId !== expected) {
    return allUnknown(`Not checked: the RPC serves another chain.`, {
      name: 'chain_id',
      result: 'failed',
      detail: `The RPC serves chain ${chainId}; the certificate was minted on chain ${expected}.`,
    });
  }
  try {
    const mint = await checkMint(bundle, rpc);
    const token = await checkToken(bundle, rpc, mint.check.result === 'passed');
    const merkle = await checkMerkle(bundle, rpc, metadataHash, mint.batch, token.owner !== null);
    return {
      owner: token.owner,
      checks: [
        {
          name: 'chain_id',
          result: 'passed',
          detail: `The RPC serves chain ${chainId}, the certificate's chain.`,
        },
        mint.check,
        merkle,
        token.check,
      ],
    };
  } catch (err) {
    if (err instanceof RpcUnreachableError) return allUnknown(`Not checked: ${err.message}.`);
    throw err;
  }
}
