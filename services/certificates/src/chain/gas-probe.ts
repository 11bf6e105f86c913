// Gas measurement helpers shared by the contract gas tests and `bench/contract-gas.ts`: mint a
// batch and read its gas, first transfers to fresh recipients, and the plain OpenZeppelin ERC721
// baseline (contracts/bench/PlainERC721.sol). Not used by the service at run time.
import { Contract, ContractFactory, Wallet, hexlify, randomBytes, type Signer } from 'ethers';
import { buildBatchTree, loadArtifact, type CertificatesContract } from './contract.js';

export function randomHash(): string {
  return hexlify(randomBytes(32));
}

export interface MintedGas {
  firstTokenId: bigint;
  gasUsed: bigint;
}

/** Mints `quantity` certificates with random metadata hashes and a random batch key. */
export async function mintAndMeasure(
  certs: CertificatesContract,
  to: string,
  quantity: number,
): Promise<MintedGas> {
  const tree = buildBatchTree(Array.from({ length: quantity }, randomHash));
  const receipt = await (
    await certs.mintBatch({ to, quantity, merkleRoot: tree.root, batchKey: randomHash() })
  ).wait();
  const [event] = receipt ? certs.parseBatchMinted(receipt) : [];
  if (!receipt || !event) throw new Error('mintBatch produced no BatchMinted event');
  return { firstTokenId: event.firstTokenId, gasUsed: receipt.gasUsed };
}

/** The baseline: a plain OpenZeppelin ERC721 whose `mintBatch(to, quantity)` loops `_mint`. */
export class PlainERC721Baseline {
  private constructor(readonly contract: Contract) {}

  static async deploy(deployer: Signer): Promise<PlainERC721Baseline> {
    const artifact = loadArtifact('PlainERC721');
    const factory = new ContractFactory(
      artifact.abi as ConstructorParameters<typeof ContractFactory>[0],
      artifact.bytecode,
      deployer,
    );
    const deployed = await factory.deploy();
    await deployed.waitForDeployment();
    return new PlainERC721Baseline(new Contract(await deployed.getAddress(), factory.interface, deployer));
  }

  async mintAndMeasure(to: string, quantity: number): Promise<MintedGas> {
    const mint = this.contract.getFunction('mintBatch');
    const firstTokenId = (await mint.staticCall(to, quantity)) as bigint;
    const receipt = await (await mint.send(to, quantity)).wait();
    if (!receipt) throw new Error('no receipt');
    return { firstTokenId, gasUsed: receipt.gasUsed };
  }
}

/**
 * Gas of `holder` transferring each token to a fresh random address (whose balance slot is new:
 * the worst case), in order. `contract` is any ERC-721 with `transferFrom`.
 */
export async function firstTransferGas(
  contract: Contract,
  holder: Signer,
  tokenIds: readonly bigint[],
): Promise<number[]> {
  const from = await holder.getAddress();
  const transfer = (contract.connect(holder) as Contract).getFunction('transferFrom');
  const gas: number[] = [];
  for (const tokenId of tokenIds) {
    const receipt = await (await transfer.send(from, Wallet.createRandom().address, tokenId)).wait();
    if (!receipt) throw new Error('no receipt');
    gas.push(Number(receipt.gasUsed));
  }
  return gas;
}
