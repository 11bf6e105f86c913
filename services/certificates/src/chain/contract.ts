// Typed ethers v6 bindings of the HallmarkCertificates contract (contracts/HallmarkCertificates.sol):
// deployment, batch minting, ERC-4494 permits and transfers by signature, burn, allowlist. The ABI
// (abi.ts), a batch's on-chain record (batch-record.ts), reading its logs (events.ts) and the batch
// Merkle tree (batch-tree.ts) live beside it and are re-exported here, so callers import one module.
import {
  Contract,
  ContractFactory,
  TransactionReceipt,
  ZeroHash,
  id as keccakUtf8,
  type BigNumberish,
  type ContractRunner,
  type ContractTransactionResponse,
  type Log,
  type Overrides,
  type Signer,
  type TypedDataDomain,
} from 'ethers';
import { certificatesInterface, loadArtifact } from './abi.js';
import type { BatchInfo, BatchRecord } from './batch-record.js';
import { parseBatchMinted, type BatchMinted, type TransferEventMode } from './events.js';
import { permitDomain, signTransferPermit } from './permits.js';

export * from './abi.js';
export * from './batch-record.js';
export * from './batch-tree.js';
export * from './events.js';
export * from './permits.js';

export const DEFAULT_ADMIN_ROLE = ZeroHash;
export const MINTER_ROLE = keccakUtf8('MINTER_ROLE');
/** ERC-165 ids the contract answers true for. */
export const INTERFACE_IDS = {
  erc165: '0x01ffc9a7',
  erc721: '0x80ac58cd',
  erc721Metadata: '0x5b5e139f',
  accessControl: '0x7965db0b',
  erc4494: '0x5604e225',
  erc4906: '0x49064906',
} as const;
/**
 * Hallmark's probe for ERC-2309 batches (ERC-2309 defines no ERC-165 id): the first four bytes of
 * keccak256("ConsecutiveTransfer(uint256,uint256,address,address)"); true exactly on deployments
 * that mint with `ConsecutiveTransfer`.
 */
export const CONSECUTIVE_TRANSFER_INTERFACE_ID = '0xdeaa91b6';

// ---------------------------------------------------------------------------------------------
// Contract bindings

export interface DeployOptions {
  baseURI: string;
  /** `Ownable` owner (a burn authority); default: the deployer. */
  owner?: string;
  /** `DEFAULT_ADMIN_ROLE` holder; default: the deployer. */
  admin?: string;
  /** Initial `MINTER_ROLE` holder (the relayer); default: the deployer. Zero address for none. */
  minter?: string;
  name?: string;
  symbol?: string;
  /** How batches announce their tokens (immutable per deployment); default `erc2309`. */
  transferEvents?: TransferEventMode;
}

export interface MintBatchArgs {
  to: string;
  quantity: BigNumberish;
  merkleRoot: string;
  /** The relayer's idempotency key as 32 bytes (see `batchKeyOf`); never zero, never reused. */
  batchKey: string;
  /**
   * The events this batch announces its tokens with (default `erc2309`); a per-token deployment
   * emits a `Transfer` per token whatever this says.
   */
  transferEvents?: TransferEventMode;
}

/** An inclusive range of token ids whose metadata changed (ERC-4906). */
export interface TokenRange {
  from: bigint;
  to: bigint;
}

const mintBatchParams = (args: MintBatchArgs) => [
  args.to,
  args.quantity,
  args.merkleRoot,
  args.batchKey,
  args.transferEvents === 'per-token',
];

export async function deployCertificates(
  deployer: Signer,
  opts: DeployOptions,
): Promise<CertificatesContract> {
  const artifact = loadArtifact('HallmarkCertificates');
  const me = await deployer.getAddress();
  const factory = new ContractFactory(certificatesInterface, artifact.bytecode, deployer);
  const deployed = await factory.deploy(
    opts.name ?? 'Hallmark Certificates',
    opts.symbol ?? 'HALL',
    opts.baseURI,
    opts.owner ?? me,
    opts.admin ?? me,
    opts.minter ?? me,
    opts.transferEvents === 'per-token',
  );
  await deployed.waitForDeployment();
  return new CertificatesContract(await deployed.getAddress(), deployer);
}

/** Typed wrapper over the ethers `Contract`; writes return the sent transaction (wait on it yourself). */
export class CertificatesContract {
  readonly contract: Contract;

  constructor(
    readonly address: string,
    readonly runner: ContractRunner,
  ) {
    this.contract = new Contract(address, certificatesInterface, runner);
  }

  connect(runner: ContractRunner): CertificatesContract {
    return new CertificatesContract(this.address, runner);
  }

  private call<T>(method: string, ...args: unknown[]): Promise<T> {
    return this.contract.getFunction(method).staticCall(...args) as Promise<T>;
  }

  /** A read at a past block (the chain index's re-check compares the state at its checkpoint). */
  private callAt<T>(blockTag: number | undefined, method: string, ...args: unknown[]): Promise<T> {
    return blockTag === undefined ? this.call(method, ...args) : this.call(method, ...args, { blockTag });
  }

  private send(method: string, args: unknown[], overrides?: Overrides): Promise<ContractTransactionResponse> {
    const fn = this.contract.getFunction(method);
    return (
      overrides ? fn.send(...args, overrides) : fn.send(...args)
    ) as Promise<ContractTransactionResponse>;
  }

  // -- minting --------------------------------------------------------------------------------

  mintBatch(args: MintBatchArgs, overrides?: Overrides): Promise<ContractTransactionResponse> {
    return this.send('mintBatch', mintBatchParams(args), overrides);
  }

  /** Calldata of `mintBatch`, for a relayer that signs and sends transactions itself. */
  static encodeMintBatch(args: MintBatchArgs): string {
    return certificatesInterface.encodeFunctionData('mintBatch', mintBatchParams(args));
  }

  /** ERC-4906: announces that the metadata of each range changed (admin or minter only). */
  announceMetadataUpdate(ranges: readonly TokenRange[], overrides?: Overrides) {
    const [froms, tos] = rangeParams(ranges);
    return this.send('announceMetadataUpdate', [froms, tos], overrides);
  }

  /** Calldata of `announceMetadataUpdate`, for the relayer. */
  static encodeAnnounceMetadataUpdate(ranges: readonly TokenRange[]): string {
    return certificatesInterface.encodeFunctionData('announceMetadataUpdate', rangeParams(ranges));
  }

  /** The BatchMinted events of this contract in a receipt (or a list of logs). */
  parseBatchMinted(source: TransactionReceipt | readonly Log[]): BatchMinted[] {
    return parseBatchMinted(source, this.address);
  }

  /** How this deployment mints batches: one ERC-2309 `ConsecutiveTransfer`, or a `Transfer` per token. */
  async transferEventMode(): Promise<TransferEventMode> {
    return (await this.call<boolean>('perTokenTransferEvents')) ? 'per-token' : 'erc2309';
  }

  /** Whether `batchKey` was consumed on chain, and by which batch: what a relayer reconciles with. */
  async batchByKey(batchKey: string, blockTag?: number): Promise<BatchRecord | undefined> {
    const r = await this.callAt<[boolean, bigint, bigint, string, string]>(blockTag, 'batchByKey', batchKey);
    if (!r[0]) return undefined;
    return { firstTokenId: r[1], quantity: r[2], to: r[3], merkleRootHigh: r[4] };
  }

  /**
   * The batch a token was minted in (reverts ERC721NonexistentToken for burned/nonexistent
   * tokens). Its key and Merkle root: the batch's BatchMinted event.
   */
  async batchOf(tokenId: BigNumberish): Promise<BatchInfo> {
    const r = await this.call<[bigint, bigint, string]>('batchOf', tokenId);
    return { firstTokenId: r[0], quantity: r[1], to: r[2] };
  }

  nextTokenId(): Promise<bigint> {
    return this.call('nextTokenId');
  }

  totalSupply(): Promise<bigint> {
    return this.call('totalSupply');
  }

  // -- reads ----------------------------------------------------------------------------------

  ownerOf(tokenId: BigNumberish, blockTag?: number): Promise<string> {
    return this.callAt(blockTag, 'ownerOf', tokenId);
  }

  exists(tokenId: BigNumberish, blockTag?: number): Promise<boolean> {
    return this.callAt(blockTag, 'exists', tokenId);
  }

  balanceOf(owner: string): Promise<bigint> {
    return this.call('balanceOf', owner);
  }

  getApproved(tokenId: BigNumberish): Promise<string> {
    return this.call('getApproved', tokenId);
  }

  isApprovedForAll(owner: string, operator: string): Promise<boolean> {
    return this.call('isApprovedForAll', owner, operator);
  }

  tokenURI(tokenId: BigNumberish): Promise<string> {
    return this.call('tokenURI', tokenId);
  }

  nonces(tokenId: BigNumberish): Promise<bigint> {
    return this.call('nonces', tokenId);
  }

  supportsInterface(interfaceId: string): Promise<boolean> {
    return this.call('supportsInterface', interfaceId);
  }

  hasRole(role: string, account: string): Promise<boolean> {
    return this.call('hasRole', role, account);
  }

  owner(): Promise<string> {
    return this.call('owner');
  }

  /**
   * Proves the certificate's metadata hash against its batch's root anchored on chain; `batchKey`
   * names the token's batch (false for any other batch's key).
   */
  verifyCertificate(
    tokenId: BigNumberish,
    batchKey: string,
    metadataHash: string,
    proof: readonly string[],
  ): Promise<boolean> {
    return this.call('verifyCertificate', tokenId, batchKey, metadataHash, [...proof]);
  }

  isAllowlisted(account: string): Promise<boolean> {
    return this.call('isAllowlisted', account);
  }

  /** The EIP-712 domain as the chain reports it (ERC-5267 `eip712Domain()`). */
  async domain(): Promise<TypedDataDomain> {
    const d = await this.call<[string, string, string, bigint, string, string, bigint[]]>('eip712Domain');
    return { name: d[1], version: d[2], chainId: d[3], verifyingContract: d[4] };
  }

  // -- writes ---------------------------------------------------------------------------------

  transferFrom(from: string, to: string, tokenId: BigNumberish, overrides?: Overrides) {
    return this.send('transferFrom', [from, to, tokenId], overrides);
  }

  safeTransferFrom(from: string, to: string, tokenId: BigNumberish, overrides?: Overrides) {
    return this.send('safeTransferFrom(address,address,uint256)', [from, to, tokenId], overrides);
  }

  approve(to: string, tokenId: BigNumberish, overrides?: Overrides) {
    return this.send('approve', [to, tokenId], overrides);
  }

  setApprovalForAll(operator: string, approved: boolean, overrides?: Overrides) {
    return this.send('setApprovalForAll', [operator, approved], overrides);
  }

  /** ERC-4494: approve `spender` with the holder's `Permit` signature (see `signPermit`). */
  permit(
    spender: string,
    tokenId: BigNumberish,
    deadline: BigNumberish,
    signature: string,
    overrides?: Overrides,
  ) {
    return this.send('permit', [spender, tokenId, deadline, signature], overrides);
  }

  /** Move the token to `to` with the holder's `TransferPermit` signature; the sender pays the gas. */
  transferWithPermit(
    to: string,
    tokenId: BigNumberish,
    deadline: BigNumberish,
    signature: string,
    overrides?: Overrides,
  ) {
    return this.send('transferWithPermit', [to, tokenId, deadline, signature], overrides);
  }

  /**
   * Signs (with the holder's key) and submits (with this binding's runner, e.g. the relayer) a
   * transfer by permit, reading the token's current nonce from the chain.
   */
  async relayTransfer(
    holder: Signer,
    to: string,
    tokenId: BigNumberish,
    opts: { deadline: BigNumberish; chainId: BigNumberish; overrides?: Overrides },
  ): Promise<ContractTransactionResponse> {
    const nonce = await this.nonces(tokenId);
    const sig = await signTransferPermit(holder, permitDomain(opts.chainId, this.address), {
      to,
      tokenId,
      nonce,
      deadline: opts.deadline,
    });
    return this.transferWithPermit(to, tokenId, opts.deadline, sig, opts.overrides);
  }

  /** Rule 13: owner, approved, operator, admin role or contract owner. */
  burn(tokenId: BigNumberish, overrides?: Overrides) {
    return this.send('burn', [tokenId], overrides);
  }

  addToAllowlist(accounts: readonly string[], overrides?: Overrides) {
    return this.send('addToAllowlist', [[...accounts]], overrides);
  }

  removeFromAllowlist(accounts: readonly string[], overrides?: Overrides) {
    return this.send('removeFromAllowlist', [[...accounts]], overrides);
  }

  setBaseURI(baseURI: string, overrides?: Overrides) {
    return this.send('setBaseURI', [baseURI], overrides);
  }

  grantRole(role: string, account: string, overrides?: Overrides) {
    return this.send('grantRole', [role, account], overrides);
  }

  revokeRole(role: string, account: string, overrides?: Overrides) {
    return this.send('revokeRole', [role, account], overrides);
  }

  /** The custom error name of a failed call/transaction from this contract, if any (e.g. `ERC721NonexistentToken`). */
  static revertName(err: unknown): string | undefined {
    const data = findRevertData(err);
    if (!data) return undefined;
    try {
      return certificatesInterface.parseError(data)?.name;
    } catch {
      return undefined;
    }
  }
}

function rangeParams(ranges: readonly TokenRange[]): [bigint[], bigint[]] {
  return [ranges.map((r) => r.from), ranges.map((r) => r.to)];
}

function findRevertData(err: unknown, depth = 0): string | undefined {
  if (!err || typeof err !== 'object' || depth > 5) return undefined;
  const e = err as { data?: unknown; error?: unknown; info?: unknown; revert?: { name?: string } };
  if (typeof e.data === 'string' && e.data.startsWith('0x') && e.data.length >= 10) return e.data;
  for (const nested of [e.error, e.info, e.data]) {
    const found = findRevertData(nested, depth + 1);
    if (found) return found;
  }
  return undefined;
}
