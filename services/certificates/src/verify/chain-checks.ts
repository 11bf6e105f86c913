// The chain checks read from the chain itself: four RPC reads in parallel (the mint receipt,
// ownerOf, verifyCertificate, exists), each bounded; a chain failure fails the check with the
// reason, never the call. A verification uses them only for a certificate the chain index does
// not cover yet (minted in blocks the indexer has not reached); the index answers the rest
// (./domain.ts), and the re-check (./workers/recheck.ts) compares the two.
import { getAddress, ZeroHash, zeroPadValue, toBeHex, type JsonRpcProvider } from 'ethers';
import {
  CertificatesContract,
  mintedRanges,
  receiptLogs,
  TRANSFER_TOPIC,
  type BatchTree,
} from '../chain/contract.js';
import type { CertificateRecord } from '../domain/certificate.js';
import { burnedDetail, short, type ChainChecks, type Check } from './domain.js';

export interface VerifierChain {
  provider: JsonRpcProvider;
  contract: CertificatesContract;
  /** The chain's id, as the verification reports it (the verification JSON's `chain.chainId`). */
  chainId?: bigint;
}

class ChainTimeout extends Error {}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    p,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new ChainTimeout('the chain did not answer in time')), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

/** A chain read as a value: the result, the token being gone, or the chain failing. */
export type Read<T> = { ok: true; value: T } | { ok: false; nonexistent: boolean; reason: string };

export async function read<T>(p: () => Promise<T>, ms: number): Promise<Read<T>> {
  try {
    return { ok: true, value: await withTimeout(p(), ms) };
  } catch (err) {
    const name = CertificatesContract.revertName(err);
    if (name === 'ERC721NonexistentToken') return { ok: false, nonexistent: true, reason: name };
    const reason =
      err instanceof ChainTimeout
        ? 'the chain did not answer in time'
        : name
          ? `the contract refused (${name})`
          : 'the chain could not be reached';
    return { ok: false, nonexistent: false, reason };
  }
}

/** The four chain checks of a minted certificate, read from the chain. */
export async function chainChecks(
  chain: VerifierChain,
  c: CertificateRecord,
  proof: { hash: string; tree: BatchTree; batchKey: string | null },
  timeoutMs: number,
): Promise<ChainChecks> {
  const tokenId = c.tokenId!;
  const [onChain, owner, metadata, exists] = await Promise.all([
    checkOnChain(chain, c, tokenId, timeoutMs),
    read(() => chain.contract.ownerOf(tokenId), timeoutMs),
    checkMetadata(chain, c, tokenId, proof, timeoutMs),
    read(() => chain.contract.exists(tokenId), timeoutMs),
  ]);
  const chainBurned = (exists.ok && !exists.value) || (!owner.ok && owner.nonexistent);
  let chainOwner: string | null = null;
  let holder: Check;
  if (owner.ok) {
    chainOwner = getAddress(owner.value);
    const matches = chainOwner === getAddress(c.holderAddress);
    holder = {
      name: 'holder',
      passed: matches,
      detail: matches
        ? `The chain reports the recorded holder ${chainOwner} as the token's owner.`
        : `The chain reports ${chainOwner} as the owner, but the record says ${getAddress(c.holderAddress)}.`,
    };
  } else {
    holder = {
      name: 'holder',
      passed: false,
      detail: owner.nonexistent
        ? 'The token no longer exists on chain, so it has no holder.'
        : `Could not read the token's owner: ${owner.reason}.`,
    };
  }
  let notBurned: Check;
  if (chainBurned || c.status === 'burned') {
    const burn = chainBurned ? await findBurn(chain, tokenId, c.blockNumber!, timeoutMs) : null;
    notBurned = { name: 'not_burned', passed: false, detail: burnedDetail(burn) };
  } else if (!exists.ok) {
    notBurned = { name: 'not_burned', passed: false, detail: `Could not check the token: ${exists.reason}.` };
  } else {
    notBurned = {
      name: 'not_burned',
      passed: true,
      detail: `Token #${tokenId} exists on chain: it has not been burned.`,
    };
  }
  return { checks: [onChain, holder, metadata, notBurned], chainOwner, chainBurned };
}

/** The recorded transaction exists, succeeded, sits in the recorded block and minted this token. */
async function checkOnChain(
  chain: VerifierChain,
  c: CertificateRecord,
  tokenId: bigint,
  timeoutMs: number,
): Promise<Check> {
  const name = 'on_chain';
  const tx = c.transactionHash!;
  const r = await read(() => chain.provider.getTransactionReceipt(tx), timeoutMs);
  if (!r.ok) return { name, passed: false, detail: `Could not read transaction ${short(tx)}: ${r.reason}.` };
  const receipt = r.value;
  if (!receipt) return { name, passed: false, detail: `The chain has no transaction ${short(tx)}.` };
  if (receipt.status !== 1) {
    return { name, passed: false, detail: `Transaction ${short(tx)} reverted: it minted nothing.` };
  }
  if (receipt.blockNumber !== c.blockNumber) {
    return {
      name,
      passed: false,
      detail: `Transaction ${short(tx)} is in block ${receipt.blockNumber}, but the record says block ${c.blockNumber}.`,
    };
  }
  const logs = receiptLogs(receipt);
  const batch = chain.contract
    .parseBatchMinted(logs)
    .find((e) => e.firstTokenId <= tokenId && tokenId < e.firstTokenId + e.quantity);
  // the token's own mint event: the batch's ERC-2309 ConsecutiveTransfer, or its Transfer from zero
  const mint = mintedRanges(logs, chain.contract.address).find(
    (m) => m.firstTokenId <= tokenId && tokenId <= m.lastTokenId && m.to === batch?.to,
  );
  if (!batch || !mint) {
    return {
      name,
      passed: false,
      detail: `Transaction ${short(tx)} did not mint token #${tokenId} on this certificate's contract.`,
    };
  }
  return {
    name,
    passed: true,
    detail: `Token #${tokenId} was minted in transaction ${short(tx)}, block ${receipt.blockNumber} (a batch of ${batch.quantity} from #${batch.firstTokenId}${mint.firstTokenId === mint.lastTokenId ? '' : ', announced by one ERC-2309 ConsecutiveTransfer'}).`,
  };
}

/** The recomputed metadata hash is proven against the batch's Merkle root on chain. */
async function checkMetadata(
  chain: VerifierChain,
  c: CertificateRecord,
  tokenId: bigint,
  { hash, tree, batchKey }: { hash: string; tree: BatchTree; batchKey: string | null },
  timeoutMs: number,
): Promise<Check> {
  const name = 'metadata';
  if (!batchKey) return { name, passed: false, detail: 'The record has no on-chain batch key.' };
  const proof = tree.proof(c.position);
  const r = await read(() => chain.contract.verifyCertificate(tokenId, batchKey, hash, proof), timeoutMs);
  if (!r.ok) {
    return {
      name,
      passed: false,
      detail: r.nonexistent
        ? 'The token no longer exists on chain, so its metadata cannot be proven.'
        : `Could not prove the metadata: ${r.reason}.`,
    };
  }
  if (!r.value) {
    return {
      name,
      passed: false,
      detail:
        hash === c.metadataHash
          ? 'The metadata does not match the Merkle root recorded on chain for its batch.'
          : 'The metadata was changed after minting: it no longer matches the Merkle root recorded on chain.',
    };
  }
  return {
    name,
    passed: true,
    detail: `The metadata (hash ${short(hash)}) is proven against its batch's Merkle root on chain.`,
  };
}

/** The burn of a token (its Transfer to the zero address), best effort. */
async function findBurn(
  chain: VerifierChain,
  tokenId: bigint,
  fromBlock: number,
  timeoutMs: number,
): Promise<{ tx: string; block: number } | null> {
  const r = await read(
    () =>
      chain.provider.getLogs({
        address: chain.contract.address,
        fromBlock,
        toBlock: 'latest',
        topics: [TRANSFER_TOPIC, null, ZeroHash, zeroPadValue(toBeHex(tokenId), 32)],
      }),
    timeoutMs,
  );
  const log = r.ok ? r.value[0] : undefined;
  return log ? { tx: log.transactionHash, block: log.blockNumber } : null;
}
