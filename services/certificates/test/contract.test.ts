// HallmarkCertificates on a real local chain (anvil): every rule of the contract, each test
// named after the guarantee it checks.
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { freePort, startAnvil, type AnvilHandle } from '@hallmark/devstack';
import {
  Contract,
  ContractFactory,
  TypedDataEncoder,
  Wallet,
  getAddress,
  hexlify,
  id as keccakUtf8,
  randomBytes,
  toBeHex,
  type ContractTransactionResponse,
  type HDNodeWallet,
  type JsonRpcProvider,
  type Signer,
  type TransactionReceipt,
} from 'ethers';
import {
  CONSECUTIVE_TRANSFER_INTERFACE_ID,
  CertificatesContract,
  DEFAULT_ADMIN_ROLE,
  INTERFACE_IDS,
  MINTER_ROLE,
  anchorsRoot,
  batchKeyOf,
  buildBatchTree,
  certificateLeaf,
  certificatesInterface,
  deployCertificates,
  loadArtifact,
  loadBatchTree,
  permitDomain,
  receiptLogs,
  signPermit,
  signTransferPermit,
  verifyBatchProof,
  type BatchTree,
} from '../src/chain/contract.js';
import { anvilWallet, localProvider } from '../src/chain/dev-accounts.js';

const BASE_URI = 'https://hallmark.test/api/certificate/metadata/';
const ZERO = '0x0000000000000000000000000000000000000000';

const anvilLog = join(tmpdir(), `hallmark-anvil-contract-${process.pid}.log`);
let anvil: AnvilHandle;
let provider: JsonRpcProvider;
let chainId: number;
let deployer: HDNodeWallet; // contract owner (Ownable)
let admin: HDNodeWallet; // DEFAULT_ADMIN_ROLE
let relayer: HDNodeWallet; // MINTER_ROLE, pays gas for permits
let holder: HDNodeWallet; // a funded holder that sends its own transactions
let approved: HDNodeWallet;
let operator: HDNodeWallet;
let stranger: HDNodeWallet;
let recipient: HDNodeWallet;
let certs: CertificatesContract;

function as(signer: Signer): CertificatesContract {
  return certs.connect(signer);
}

async function mined(tx: Promise<ContractTransactionResponse>): Promise<TransactionReceipt> {
  const receipt = await (await tx).wait();
  if (!receipt) throw new Error('no receipt');
  return receipt;
}

/** Awaits a call or a transaction (and its receipt) and returns the custom error it reverted with. */
async function revertOf(action: Promise<unknown>): Promise<string> {
  try {
    const result = await action;
    if (result && typeof (result as ContractTransactionResponse).wait === 'function') {
      await (result as ContractTransactionResponse).wait();
    }
  } catch (err) {
    const name = CertificatesContract.revertName(err);
    if (name) return name;
    throw err;
  }
  throw new Error('expected a revert');
}

function randomHash(): string {
  return hexlify(randomBytes(32));
}

interface Minted {
  first: bigint;
  last: bigint;
  hashes: string[];
  tree: BatchTree;
  batchKey: string;
  receipt: TransactionReceipt;
}

async function mint(
  to: string,
  quantity: number,
  batchKey = batchKeyOf(`job-${randomHash()}`),
): Promise<Minted> {
  const hashes = Array.from({ length: quantity }, randomHash);
  const tree = buildBatchTree(hashes);
  const receipt = await mined(as(relayer).mintBatch({ to, quantity, merkleRoot: tree.root, batchKey }));
  const [event] = certs.parseBatchMinted(receipt);
  if (!event) throw new Error('no BatchMinted event');
  return {
    first: event.firstTokenId,
    last: event.firstTokenId + BigInt(quantity) - 1n,
    hashes,
    tree,
    batchKey,
    receipt,
  };
}

/** The part of a Merkle root the chain's batch record stores: its low 48 bits cleared. */
function rootHigh(root: string): string {
  return toBeHex(BigInt(root) & ~((1n << 48n) - 1n), 32);
}

/** The receipt's logs decoded against the contract ABI. */
function events(receipt: TransactionReceipt) {
  return receiptLogs(receipt).map((log) =>
    certificatesInterface.parseLog({ topics: [...log.topics], data: log.data }),
  );
}

/** Owners of many tokens, read in parallel; undefined for a burned or nonexistent token. */
function ownersOf(ids: readonly bigint[]): Promise<(string | undefined)[]> {
  return Promise.all(
    ids.map((tokenId) =>
      certs.ownerOf(tokenId).catch((err: unknown) => {
        if (CertificatesContract.revertName(err) === 'ERC721NonexistentToken') return undefined;
        throw err;
      }),
    ),
  );
}

async function latestTimestamp(): Promise<number> {
  const block = await provider.getBlock('latest');
  return block!.timestamp;
}

beforeAll(async () => {
  anvil = await startAnvil({
    port: await freePort(),
    logFile: anvilLog,
  });
  chainId = anvil.chainId;
  provider = localProvider(anvil.rpcUrl, chainId);
  const w = (i: number) => anvilWallet(i, provider);
  [deployer, admin, relayer, holder, approved, operator, stranger, recipient] = [
    w(0),
    w(1),
    w(2),
    w(3),
    w(4),
    w(5),
    w(6),
    w(7),
  ];
  certs = await deployCertificates(deployer, {
    baseURI: BASE_URI,
    owner: deployer.address,
    admin: admin.address,
    minter: relayer.address,
  });
}, 60_000);

afterAll(async () => {
  provider?.destroy();
  await anvil?.stop();
  rmSync(anvilLog, { force: true });
});

describe('deployment and roles', () => {
  it('the deployer is the Ownable owner, admin holds DEFAULT_ADMIN_ROLE, the relayer MINTER_ROLE, nobody else', async () => {
    expect(await certs.owner()).toBe(deployer.address);
    expect(await certs.hasRole(DEFAULT_ADMIN_ROLE, admin.address)).toBe(true);
    expect(await certs.hasRole(DEFAULT_ADMIN_ROLE, deployer.address)).toBe(false);
    expect(await certs.hasRole(MINTER_ROLE, relayer.address)).toBe(true);
    expect(await certs.hasRole(MINTER_ROLE, stranger.address)).toBe(false);
  });

  it('ERC-165: supports ERC-721, metadata, AccessControl, ERC-4494, ERC-4906, ERC-165 and announces ERC-2309 batches, not 0xffffffff', async () => {
    for (const [name, interfaceId] of Object.entries(INTERFACE_IDS)) {
      expect([name, await certs.supportsInterface(interfaceId)]).toEqual([name, true]);
    }
    expect(CONSECUTIVE_TRANSFER_INTERFACE_ID).toBe(
      keccakUtf8('ConsecutiveTransfer(uint256,uint256,address,address)').slice(0, 10),
    );
    expect(await certs.supportsInterface(CONSECUTIVE_TRANSFER_INTERFACE_ID)).toBe(true);
    expect(await certs.transferEventMode()).toBe('erc2309');
    expect(await certs.supportsInterface('0xffffffff')).toBe(false);
    expect(await certs.supportsInterface('0x780e9d63')).toBe(false); // ERC721Enumerable: not claimed
  });

  it('the EIP-712 domain on chain is permitDomain(chainId, address) and DOMAIN_SEPARATOR matches', async () => {
    const expected = permitDomain(chainId, certs.address);
    const onChain = await certs.domain();
    expect(onChain).toEqual({ ...expected, chainId: BigInt(chainId) });
    const separator = await certs.contract.getFunction('DOMAIN_SEPARATOR').staticCall();
    expect(separator).toBe(TypedDataEncoder.hashDomain(expected));
  });

  it('only an admin grants MINTER_ROLE; a new minter can mint', async () => {
    expect(await revertOf(as(stranger).grantRole(MINTER_ROLE, stranger.address))).toBe(
      'AccessControlUnauthorizedAccount',
    );
    await mined(as(admin).grantRole(MINTER_ROLE, operator.address));
    const tree = buildBatchTree([randomHash()]);
    await mined(
      as(operator).mintBatch({
        to: holder.address,
        quantity: 1,
        merkleRoot: tree.root,
        batchKey: randomHash(),
      }),
    );
    await mined(as(admin).revokeRole(MINTER_ROLE, operator.address));
    expect(await certs.hasRole(MINTER_ROLE, operator.address)).toBe(false);
  });
});

describe('batch minting', () => {
  it('a batch mints consecutive ids to one holder: balance, ownerOf of first, middle and last token, events', async () => {
    const before = await certs.nextTokenId();
    const balanceBefore = await certs.balanceOf(holder.address);
    const a = await mint(holder.address, 3);
    const b = await mint(recipient.address, 600); // crosses two 256-id checkpoints
    expect(a.first).toBe(before);
    expect(b.first).toBe(a.last + 1n);
    expect(await certs.nextTokenId()).toBe(b.last + 1n);
    expect(await certs.balanceOf(holder.address)).toBe(balanceBefore + 3n);

    for (const id of [a.first, a.first + 1n, a.last]) expect(await certs.ownerOf(id)).toBe(holder.address);
    const middle = b.first + 300n;
    for (const id of [b.first, b.first + 1n, middle, b.last - 1n, b.last]) {
      expect(await certs.ownerOf(id)).toBe(recipient.address);
    }
    // every token of the batch, across its checkpoints at multiples of 256
    const everyId = Array.from({ length: 600 }, (_, i) => b.first + BigInt(i));
    expect(new Set(await ownersOf(everyId))).toEqual(new Set([recipient.address]));
    expect(await revertOf(certs.ownerOf(b.last + 1n))).toBe('ERC721NonexistentToken');
    expect(await revertOf(certs.ownerOf(0n))).toBe('ERC721NonexistentToken');
    expect(await certs.exists(b.last + 1n)).toBe(false);
    expect(await certs.exists(b.last)).toBe(true);

    // ERC-2309 (the default deployment): one ConsecutiveTransfer(first, last, 0 → holder) for the
    // whole batch and no ERC-721 Transfer for its tokens, and one BatchMinted
    const decoded = events(b.receipt);
    expect(decoded.filter((p) => p?.name === 'Transfer')).toHaveLength(0);
    const ranges = decoded.filter((p) => p?.name === 'ConsecutiveTransfer');
    expect(ranges.map((r) => [...r!.args])).toEqual([[b.first, b.last, ZERO, recipient.address]]);
    const [event] = certs.parseBatchMinted(b.receipt);
    expect(event).toEqual({
      batchKey: b.batchKey,
      firstTokenId: b.first,
      quantity: 600n,
      merkleRoot: b.tree.root,
      to: recipient.address,
    });
    // one slot per batch: the idempotency record, which anchors the root's 208 high bits; the
    // quantity and holder come from the run, the full root from BatchMinted
    const info = { firstTokenId: b.first, quantity: 600n, to: recipient.address };
    const record = await certs.batchByKey(b.batchKey);
    expect(record).toEqual({ ...info, merkleRootHigh: rootHigh(b.tree.root) });
    expect(anchorsRoot(record!, b.tree.root)).toBe(true);
    expect(anchorsRoot(record!, a.tree.root)).toBe(false);
    for (const id of [b.first, middle, b.last]) expect(await certs.batchOf(id)).toEqual(info);
    expect(await certs.batchOf(a.last)).toEqual({ firstTokenId: a.first, quantity: 3n, to: holder.address });
  });

  it('a batch crossing one 256-id boundary writes no checkpoint: its ids past the boundary find their run in the word before', async () => {
    // align: the next batch starts 50 ids before a multiple of 256
    const next = await certs.nextTokenId();
    const pad = Number((256n - ((next + 50n) % 256n)) % 256n);
    if (pad > 0) await mint(holder.address, pad);
    const crossing = await mint(recipient.address, 100);
    expect(crossing.first % 256n).toBe(206n);
    const after = await mint(approved.address, 100); // starts in the word the crossing batch reached
    const ids = (m: Minted) => Array.from({ length: 100 }, (_, i) => m.first + BigInt(i));
    expect(await ownersOf(ids(crossing))).toEqual(ids(crossing).map(() => recipient.address));
    expect(await ownersOf(ids(after))).toEqual(ids(after).map(() => approved.address));
    expect(await certs.batchOf(crossing.last)).toEqual({
      firstTokenId: crossing.first,
      quantity: 100n,
      to: recipient.address,
    });
    expect(
      await certs.verifyCertificate(
        crossing.last,
        crossing.batchKey,
        crossing.hashes[99]!,
        crossing.tree.proof(99),
      ),
    ).toBe(true);
    // a token moved past the boundary keeps the rest of the run with its holder
    await mined(as(recipient).transferFrom(recipient.address, holder.address, crossing.first + 60n));
    expect(await certs.ownerOf(crossing.first + 60n)).toBe(holder.address);
    expect(await certs.ownerOf(crossing.first + 61n)).toBe(recipient.address);
    expect(await revertOf(certs.ownerOf(after.last + 1n))).toBe('ERC721NonexistentToken');
    expect(await revertOf(certs.ownerOf(after.last + 300n))).toBe('ERC721NonexistentToken');
  });

  it('batches of different holders sharing a 256-id word keep their own owners', async () => {
    const runs: { m: Minted; to: string }[] = [];
    const tos = [holder.address, recipient.address, approved.address, holder.address];
    for (const [i, to] of tos.entries()) runs.push({ m: await mint(to, [1, 2, 5, 1][i]!), to });
    for (const { m, to } of runs) {
      const range = Array.from({ length: Number(m.last - m.first) + 1 }, (_, i) => m.first + BigInt(i));
      expect(await ownersOf(range)).toEqual(range.map(() => to));
    }
  });

  it('a reused batchKey reverts on chain, so a re-sent batch can never mint twice', async () => {
    const key = batchKeyOf('shop#order-1#line-1#abc');
    const first = await mint(holder.address, 4, key);
    const next = await certs.nextTokenId();
    const supply = await certs.totalSupply();
    const tree = buildBatchTree([randomHash(), randomHash(), randomHash(), randomHash()]);
    expect(
      await revertOf(
        as(relayer).mintBatch({ to: holder.address, quantity: 4, merkleRoot: tree.root, batchKey: key }),
      ),
    ).toBe('HallmarkBatchKeyUsed');
    expect(await certs.nextTokenId()).toBe(next);
    expect(await certs.totalSupply()).toBe(supply);
    const info = await certs.batchByKey(key);
    expect(info).toEqual({
      firstTokenId: first.first,
      quantity: 4n,
      to: holder.address,
      merkleRootHigh: rootHigh(first.tree.root),
    });
    // the re-sent batch's other root is not the anchored one
    expect(anchorsRoot(info!, tree.root)).toBe(false);
    expect(await certs.batchByKey(batchKeyOf('never used'))).toBeUndefined();
  });

  it('mintBatch refuses a zero batchKey, zero or oversized quantity, the zero holder, and non-minters', async () => {
    const root = buildBatchTree([randomHash()]).root;
    const args = { to: holder.address, quantity: 1, merkleRoot: root, batchKey: randomHash() };
    expect(await revertOf(as(relayer).mintBatch({ ...args, batchKey: `0x${'00'.repeat(32)}` }))).toBe(
      'HallmarkInvalidBatchKey',
    );
    expect(await revertOf(as(relayer).mintBatch({ ...args, quantity: 0 }))).toBe('HallmarkInvalidQuantity');
    expect(await revertOf(as(relayer).mintBatch({ ...args, quantity: 10_001 }))).toBe(
      'HallmarkInvalidQuantity',
    );
    expect(await revertOf(as(relayer).mintBatch({ ...args, to: ZERO }))).toBe('ERC721InvalidReceiver');
    for (const who of [stranger, admin, deployer]) {
      expect(await revertOf(as(who).mintBatch(args))).toBe('AccessControlUnauthorizedAccount');
    }
  });

  it('ownerOf and balanceOf match a reference model after random batches, transfers and burns', async () => {
    const wallets = [holder, recipient, approved, operator];
    const balancesBefore = await Promise.all(wallets.map((w) => certs.balanceOf(w.address)));
    const model = new Map<bigint, string | undefined>(); // token → owner (undefined: burned)
    let seed = 42;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    for (const quantity of [1, 7, 255, 1, 300, 2, 513]) {
      const to = wallets[rand(wallets.length)]!;
      const m = await mint(to.address, quantity);
      for (let id = m.first; id <= m.last; id++) model.set(id, to.address);
    }
    const ids = [...model.keys()];
    for (let i = 0; i < 30; i++) {
      const tokenId = ids[rand(ids.length)]!;
      const current = model.get(tokenId);
      if (!current) continue;
      const from = wallets.find((w) => w.address === current)!;
      if (i % 6 === 5) {
        await mined(as(from).burn(tokenId));
        model.set(tokenId, undefined);
      } else {
        const to = wallets[rand(wallets.length)]!;
        await mined(as(from).transferFrom(from.address, to.address, tokenId));
        model.set(tokenId, to.address);
      }
    }
    // every token of the model, read in parallel (ethers batches the calls)
    const onChain = await ownersOf(ids);
    expect(ids.filter((id, i) => onChain[i] !== model.get(id))).toEqual([]);
    const balancesAfter = await Promise.all(wallets.map((w) => certs.balanceOf(w.address)));
    wallets.forEach((w, i) => {
      const held = [...model.values()].filter((o) => o === w.address).length;
      expect(balancesAfter[i]! - balancesBefore[i]!).toBe(BigInt(held));
    });
  });
});

describe('Merkle proofs of certificate metadata', () => {
  it('every certificate of a batch proves its metadata hash against the batch root on chain', async () => {
    const m = await mint(holder.address, 9);
    for (let i = 0; i < 9; i++) {
      const tokenId = m.first + BigInt(i);
      expect(await certs.verifyCertificate(tokenId, m.batchKey, m.hashes[i]!, m.tree.proof(i))).toBe(true);
      expect(verifyBatchProof(m.tree.root, i, m.hashes[i]!, m.tree.proof(i))).toBe(true);
      expect(m.tree.leaf(i)).toBe(certificateLeaf(i, m.hashes[i]!));
    }
  });

  it('a tampered leaf, a proof of another token or another batch, or another batch key fails verification', async () => {
    const m = await mint(holder.address, 5);
    const other = await mint(holder.address, 5);
    const tampered = `0x${'ab'.repeat(32)}`;
    const token = m.first + 2n;
    expect(await certs.verifyCertificate(token, m.batchKey, tampered, m.tree.proof(2))).toBe(false);
    // token 3's hash and proof presented for token 2 of the same batch
    expect(await certs.verifyCertificate(token, m.batchKey, m.hashes[3]!, m.tree.proof(3))).toBe(false);
    // a valid (index, hash, proof) of another batch, under this batch's key or under its own
    expect(await certs.verifyCertificate(token, m.batchKey, other.hashes[2]!, other.tree.proof(2))).toBe(
      false,
    );
    expect(await certs.verifyCertificate(token, other.batchKey, other.hashes[2]!, other.tree.proof(2))).toBe(
      false,
    );
    // the right proof under another batch's key, or an unused key
    expect(await certs.verifyCertificate(token, other.batchKey, m.hashes[2]!, m.tree.proof(2))).toBe(false);
    expect(await certs.verifyCertificate(token, randomHash(), m.hashes[2]!, m.tree.proof(2))).toBe(false);
    // a truncated proof
    expect(await certs.verifyCertificate(token, m.batchKey, m.hashes[2]!, m.tree.proof(2).slice(1))).toBe(
      false,
    );
    expect(verifyBatchProof(m.tree.root, 2, tampered, m.tree.proof(2))).toBe(false);
  });

  it('a single-certificate batch proves with an empty proof; a dumped tree reloads with the same proofs', async () => {
    const m = await mint(holder.address, 1);
    expect(m.tree.proof(0)).toEqual([]);
    expect(await certs.verifyCertificate(m.first, m.batchKey, m.hashes[0]!, [])).toBe(true);
    const big = buildBatchTree(Array.from({ length: 33 }, randomHash));
    const reloaded = loadBatchTree(JSON.parse(JSON.stringify(big.dump())));
    expect(reloaded.root).toBe(big.root);
    expect(reloaded.size).toBe(33);
    expect(reloaded.proof(17)).toEqual(big.proof(17));
  });

  it('verifying a nonexistent token reverts', async () => {
    expect(await revertOf(certs.verifyCertificate(10_000_000n, randomHash(), randomHash(), []))).toBe(
      'ERC721NonexistentToken',
    );
  });
});

describe('token metadata', () => {
  it('tokenURI is baseURI + tokenId; only the admin changes the base URI', async () => {
    const m = await mint(holder.address, 2);
    expect(await certs.tokenURI(m.last)).toBe(`${BASE_URI}${m.last}`);
    expect(await revertOf(as(stranger).setBaseURI('https://evil.test/'))).toBe(
      'AccessControlUnauthorizedAccount',
    );
    expect(await revertOf(as(relayer).setBaseURI('https://evil.test/'))).toBe(
      'AccessControlUnauthorizedAccount',
    );
    const receipt = await mined(as(admin).setBaseURI('https://other.test/meta/'));
    const names = events(receipt).map((e) => e?.name);
    expect(names).toEqual(['BaseURIUpdated', 'BatchMetadataUpdate']);
    expect(await certs.tokenURI(m.first)).toBe(`https://other.test/meta/${m.first}`);
    await mined(as(admin).setBaseURI(BASE_URI));
    expect(await revertOf(certs.tokenURI(m.last + 1_000_000n))).toBe('ERC721NonexistentToken');
  });
});

describe('transfers', () => {
  it('a transfer moves ownership and balances, clears the token approval and bumps the permit nonce', async () => {
    const m = await mint(holder.address, 3);
    const id = m.first + 1n;
    await mined(as(holder).approve(approved.address, id));
    expect(await certs.getApproved(id)).toBe(approved.address);
    const [hb, rb] = [await certs.balanceOf(holder.address), await certs.balanceOf(recipient.address)];
    await mined(as(holder).transferFrom(holder.address, recipient.address, id));
    expect(await certs.ownerOf(id)).toBe(recipient.address);
    expect(await certs.getApproved(id)).toBe(ZERO);
    expect(await certs.nonces(id)).toBe(1n);
    expect(await certs.balanceOf(holder.address)).toBe(hb - 1n);
    expect(await certs.balanceOf(recipient.address)).toBe(rb + 1n);
    // neighbours untouched
    expect(await certs.ownerOf(m.first)).toBe(holder.address);
    expect(await certs.ownerOf(m.last)).toBe(holder.address);
  });

  it('approved addresses and operators may transfer; strangers, a wrong from and the zero receiver may not', async () => {
    const m = await mint(holder.address, 3);
    expect(await revertOf(as(stranger).transferFrom(holder.address, stranger.address, m.first))).toBe(
      'ERC721InsufficientApproval',
    );
    expect(await revertOf(as(holder).transferFrom(recipient.address, stranger.address, m.first))).toBe(
      'ERC721IncorrectOwner',
    );
    expect(await revertOf(as(holder).transferFrom(holder.address, ZERO, m.first))).toBe(
      'ERC721InvalidReceiver',
    );
    expect(await revertOf(as(stranger).approve(stranger.address, m.first))).toBe('ERC721InvalidApprover');

    await mined(as(holder).approve(approved.address, m.first));
    await mined(as(approved).transferFrom(holder.address, recipient.address, m.first));
    expect(await certs.ownerOf(m.first)).toBe(recipient.address);

    await mined(as(holder).setApprovalForAll(operator.address, true));
    expect(await certs.isApprovedForAll(holder.address, operator.address)).toBe(true);
    await mined(as(operator).transferFrom(holder.address, recipient.address, m.first + 1n));
    expect(await certs.ownerOf(m.first + 1n)).toBe(recipient.address);
    // an operator may approve on the owner's behalf
    await mined(as(operator).approve(approved.address, m.last));
    expect(await certs.getApproved(m.last)).toBe(approved.address);
    await mined(as(holder).setApprovalForAll(operator.address, false));
    expect(await revertOf(as(operator).transferFrom(holder.address, recipient.address, m.last))).toBe(
      'ERC721InsufficientApproval',
    );
  });

  it('safeTransferFrom to a contract that is not an ERC-721 receiver reverts; to an account it succeeds', async () => {
    const m = await mint(holder.address, 2);
    expect(await revertOf(as(holder).safeTransferFrom(holder.address, certs.address, m.first))).toBe(
      'ERC721InvalidReceiver',
    );
    expect(await certs.ownerOf(m.first)).toBe(holder.address);
    await mined(as(holder).safeTransferFrom(holder.address, recipient.address, m.first));
    expect(await certs.ownerOf(m.first)).toBe(recipient.address);
  });
});

describe('ERC-4494 permits (relayer pays, the holder key authorises)', () => {
  let custodial: Wallet; // a custodial holder wallet with no ETH at all

  beforeAll(() => {
    custodial = Wallet.createRandom(provider) as unknown as Wallet;
  });

  async function permitSig(
    signer: Signer,
    spender: string,
    tokenId: bigint,
    deadline: number,
    nonce?: bigint,
  ) {
    return signPermit(signer, permitDomain(chainId, certs.address), {
      spender,
      tokenId,
      nonce: nonce ?? (await certs.nonces(tokenId)),
      deadline,
    });
  }

  it('a permit signed by the holder lets the relayer approve itself and transfer, the holder paying no gas', async () => {
    const m = await mint(custodial.address, 2);
    expect(await provider.getBalance(custodial.address)).toBe(0n);
    const deadline = (await latestTimestamp()) + 3600;
    const sig = await permitSig(custodial, relayer.address, m.first, deadline);
    await mined(as(relayer).permit(relayer.address, m.first, deadline, sig));
    expect(await certs.getApproved(m.first)).toBe(relayer.address);
    expect(await certs.nonces(m.first)).toBe(1n);
    await mined(as(relayer).transferFrom(custodial.address, recipient.address, m.first));
    expect(await certs.ownerOf(m.first)).toBe(recipient.address);
    expect(await certs.getApproved(m.first)).toBe(ZERO);
    expect(await provider.getBalance(custodial.address)).toBe(0n);
  });

  it('transferWithPermit moves the token to the signed recipient in one relayer transaction', async () => {
    const m = await mint(custodial.address, 2);
    const deadline = (await latestTimestamp()) + 3600;
    const receipt = await mined(
      as(relayer).relayTransfer(custodial, recipient.address, m.last, { deadline, chainId }),
    );
    expect(receipt.from).toBe(relayer.address);
    expect(await certs.ownerOf(m.last)).toBe(recipient.address);
    expect(await certs.nonces(m.last)).toBe(1n);
  });

  it('an expired permit is refused', async () => {
    const m = await mint(custodial.address, 1);
    const deadline = (await latestTimestamp()) - 1;
    const sig = await permitSig(custodial, relayer.address, m.first, deadline);
    expect(await revertOf(as(relayer).permit(relayer.address, m.first, deadline, sig))).toBe(
      'HallmarkPermitExpired',
    );
    const tsig = await signTransferPermit(custodial, permitDomain(chainId, certs.address), {
      to: recipient.address,
      tokenId: m.first,
      nonce: 0n,
      deadline,
    });
    expect(await revertOf(as(relayer).transferWithPermit(recipient.address, m.first, deadline, tsig))).toBe(
      'HallmarkPermitExpired',
    );
  });

  it('a replayed permit is refused (the nonce moved on)', async () => {
    const m = await mint(custodial.address, 1);
    const deadline = (await latestTimestamp()) + 3600;
    const sig = await permitSig(custodial, relayer.address, m.first, deadline);
    await mined(as(relayer).permit(relayer.address, m.first, deadline, sig));
    expect(await revertOf(as(relayer).permit(relayer.address, m.first, deadline, sig))).toBe(
      'HallmarkInvalidPermitSignature',
    );

    const t = await mint(custodial.address, 1);
    const tsig = await signTransferPermit(custodial, permitDomain(chainId, certs.address), {
      to: recipient.address,
      tokenId: t.first,
      nonce: 0n,
      deadline,
    });
    await mined(as(relayer).transferWithPermit(recipient.address, t.first, deadline, tsig));
    // back to the custodial holder: the old signature still names the right owner, but the nonce moved on
    await mined(as(recipient).transferFrom(recipient.address, custodial.address, t.first));
    expect(await revertOf(as(relayer).transferWithPermit(recipient.address, t.first, deadline, tsig))).toBe(
      'HallmarkInvalidPermitSignature',
    );
  });

  it('a permit signed by anyone but the holder, or for another recipient, token or domain, is refused', async () => {
    const m = await mint(custodial.address, 2);
    const deadline = (await latestTimestamp()) + 3600;
    const wrongSigner = await permitSig(stranger, stranger.address, m.first, deadline);
    expect(await revertOf(as(stranger).permit(stranger.address, m.first, deadline, wrongSigner))).toBe(
      'HallmarkInvalidPermitSignature',
    );
    const domain = permitDomain(chainId, certs.address);
    const forRecipient = await signTransferPermit(custodial, domain, {
      to: recipient.address,
      tokenId: m.first,
      nonce: 0n,
      deadline,
    });
    // recipient swapped by the submitter
    expect(
      await revertOf(as(relayer).transferWithPermit(stranger.address, m.first, deadline, forRecipient)),
    ).toBe('HallmarkInvalidPermitSignature');
    // the same signature for the neighbouring token
    expect(
      await revertOf(as(relayer).transferWithPermit(recipient.address, m.last, deadline, forRecipient)),
    ).toBe('HallmarkInvalidPermitSignature');
    // signed for another chain id
    const otherChain = await signTransferPermit(custodial, permitDomain(chainId + 1, certs.address), {
      to: recipient.address,
      tokenId: m.first,
      nonce: 0n,
      deadline,
    });
    expect(
      await revertOf(as(relayer).transferWithPermit(recipient.address, m.first, deadline, otherChain)),
    ).toBe('HallmarkInvalidPermitSignature');
    // an approval permit is not a transfer permit
    const approval = await permitSig(custodial, recipient.address, m.first, deadline);
    expect(
      await revertOf(as(relayer).transferWithPermit(recipient.address, m.first, deadline, approval)),
    ).toBe('HallmarkInvalidPermitSignature');
    // a stretched deadline breaks the signature
    expect(
      await revertOf(as(relayer).transferWithPermit(recipient.address, m.first, deadline + 1, forRecipient)),
    ).toBe('HallmarkInvalidPermitSignature');
    expect(await certs.ownerOf(m.first)).toBe(custodial.address);
    expect(await revertOf(as(relayer).transferWithPermit(ZERO, m.first, deadline, forRecipient))).toBe(
      'ERC721InvalidReceiver',
    );
  });
});

describe('burn (rule 13: owner, approved, operator, admin role, contract owner — nobody else)', () => {
  const authorities: [string, () => HDNodeWallet, (tokenId: bigint) => Promise<void>][] = [
    ['the token owner', () => holder, async () => {}],
    [
      'the address approved for the token',
      () => approved,
      async (id) => void (await mined(as(holder).approve(approved.address, id))),
    ],
    [
      'an operator approved for all of the owner’s tokens',
      () => operator,
      async () => void (await mined(as(holder).setApprovalForAll(operator.address, true))),
    ],
    ['a DEFAULT_ADMIN_ROLE holder', () => admin, async () => {}],
    ['the contract owner', () => deployer, async () => {}],
  ];

  it.each(authorities)(
    'burn by %s succeeds: Transfer to zero, balance down, token gone',
    async (_, who, prepare) => {
      const m = await mint(holder.address, 3);
      const id = m.first + 1n;
      await prepare(id);
      const balance = await certs.balanceOf(holder.address);
      const supply = await certs.totalSupply();
      const receipt = await mined(as(who()).burn(id));
      const transfer = events(receipt).find((p) => p?.name === 'Transfer');
      expect([transfer?.args.from, transfer?.args.to, transfer?.args.tokenId]).toEqual([
        holder.address,
        ZERO,
        id,
      ]);
      expect(await certs.balanceOf(holder.address)).toBe(balance - 1n);
      expect(await certs.totalSupply()).toBe(supply - 1n);
      expect(await revertOf(certs.ownerOf(id))).toBe('ERC721NonexistentToken');
      expect(await certs.ownerOf(m.first)).toBe(holder.address);
      expect(await certs.ownerOf(m.last)).toBe(holder.address);
      await mined(as(holder).setApprovalForAll(operator.address, false));
    },
  );

  it('burn by a stranger, a minter, or a former owner/approved address after a transfer reverts', async () => {
    const m = await mint(holder.address, 2);
    for (const who of [stranger, relayer, recipient]) {
      expect(await revertOf(as(who).burn(m.first))).toBe('HallmarkUnauthorizedBurn');
    }
    await mined(as(holder).approve(approved.address, m.first));
    await mined(as(holder).transferFrom(holder.address, recipient.address, m.first));
    for (const who of [holder, approved]) {
      expect(await revertOf(as(who).burn(m.first))).toBe('HallmarkUnauthorizedBurn');
    }
    // an operator of the former owner is no operator of the new one
    await mined(as(holder).setApprovalForAll(operator.address, true));
    expect(await revertOf(as(operator).burn(m.first))).toBe('HallmarkUnauthorizedBurn');
    await mined(as(holder).setApprovalForAll(operator.address, false));
    expect(await certs.ownerOf(m.first)).toBe(recipient.address);
    // a revoked admin loses the power
    await mined(as(admin).grantRole(DEFAULT_ADMIN_ROLE, stranger.address));
    await mined(as(admin).revokeRole(DEFAULT_ADMIN_ROLE, stranger.address));
    expect(await revertOf(as(stranger).burn(m.last))).toBe('HallmarkUnauthorizedBurn');
  });

  it('burn clears approvals and the burned token can no longer be queried, moved or burned again', async () => {
    const m = await mint(holder.address, 2);
    const id = m.first;
    await mined(as(holder).approve(approved.address, id));
    const receipt = await mined(as(holder).burn(id));
    const names = events(receipt).map((e) => e?.name);
    expect(names).toEqual(['Transfer']);
    expect(await certs.exists(id)).toBe(false);
    for (const read of [
      certs.ownerOf(id),
      certs.getApproved(id),
      certs.tokenURI(id),
      certs.nonces(id),
      certs.batchOf(id),
      certs.verifyCertificate(id, m.batchKey, m.hashes[0]!, m.tree.proof(0)),
    ]) {
      expect(await revertOf(read)).toBe('ERC721NonexistentToken');
    }
    expect(await revertOf(as(approved).transferFrom(holder.address, approved.address, id))).toBe(
      'ERC721NonexistentToken',
    );
    expect(await revertOf(as(holder).burn(id))).toBe('ERC721NonexistentToken');
    expect(await revertOf(as(admin).burn(id))).toBe('ERC721NonexistentToken');
    expect(await revertOf(as(holder).approve(approved.address, id))).toBe('ERC721NonexistentToken');
    // the neighbour in the same batch still proves and transfers
    expect(await certs.verifyCertificate(m.last, m.batchKey, m.hashes[1]!, m.tree.proof(1))).toBe(true);
    // burning an untouched (lazy) token and a transferred one
    const n = await mint(holder.address, 300);
    await mined(as(admin).burn(n.first + 299n));
    await mined(as(holder).transferFrom(holder.address, recipient.address, n.first + 7n));
    await mined(as(recipient).burn(n.first + 7n));
    for (const gone of [n.first + 299n, n.first + 7n]) {
      expect(await revertOf(certs.ownerOf(gone))).toBe('ERC721NonexistentToken');
    }
    expect(await certs.ownerOf(n.first + 298n)).toBe(holder.address);
  });

  it('burning a token that was never minted reverts with ERC721NonexistentToken', async () => {
    expect(await revertOf(as(deployer).burn((await certs.nextTokenId()) + 5n))).toBe(
      'ERC721NonexistentToken',
    );
  });
});

describe('allowlist', () => {
  it('the admin and a minter add and remove addresses in batches, each change announced by an event', async () => {
    const a = Wallet.createRandom().address;
    const b = Wallet.createRandom().address;
    const c = Wallet.createRandom().address;
    const added = await mined(as(admin).addToAllowlist([a, b]));
    expect(events(added).map((e) => [e?.name, e?.args.account, e?.args.allowed])).toEqual([
      ['AllowlistUpdated', a, true],
      ['AllowlistUpdated', b, true],
    ]);
    // the minter adds c; a is already there: no event for it
    const again = await mined(as(relayer).addToAllowlist([a, c]));
    expect(events(again)).toHaveLength(1);
    expect(await certs.isAllowlisted(a)).toBe(true);
    expect(await certs.isAllowlisted(b)).toBe(true);
    expect(await certs.isAllowlisted(c)).toBe(true);

    const removed = await mined(as(relayer).removeFromAllowlist([b, c]));
    expect(events(removed).map((e) => [e?.args.account, e?.args.allowed])).toEqual([
      [b, false],
      [c, false],
    ]);
    expect(await certs.isAllowlisted(b)).toBe(false);
    expect(await certs.isAllowlisted(a)).toBe(true);
    await mined(as(admin).removeFromAllowlist([a]));
    expect(await certs.isAllowlisted(a)).toBe(false);
  });

  it('anyone else (including the contract owner and token holders) is refused; the zero address is refused', async () => {
    const a = Wallet.createRandom().address;
    for (const who of [stranger, holder, deployer]) {
      expect(await revertOf(as(who).addToAllowlist([a]))).toBe('HallmarkNotAdminOrMinter');
      expect(await revertOf(as(who).removeFromAllowlist([a]))).toBe('HallmarkNotAdminOrMinter');
    }
    expect(await revertOf(as(admin).addToAllowlist([a, ZERO]))).toBe('HallmarkInvalidAddress');
    expect(await certs.isAllowlisted(a)).toBe(false);
  });
});

describe('artifact and bindings', () => {
  it('the binding’s ABI is the artifact’s and the deployed code answers to it', async () => {
    const artifact = loadArtifact('HallmarkCertificates');
    expect(artifact.compiler.version).toMatch(/^0\.8\.37/);
    const raw = new Contract(certs.address, certificatesInterface, provider);
    expect(await raw.getFunction('name').staticCall()).toBe('Hallmark Certificates');
    expect(await raw.getFunction('symbol').staticCall()).toBe('HALL');
    expect(getAddress(await raw.getAddress())).toBe(certs.address);
    expect(
      CertificatesContract.encodeMintBatch({
        to: holder.address,
        quantity: 1,
        merkleRoot: randomHash(),
        batchKey: keccakUtf8('k'),
      }),
    ).toMatch(/^0x[0-9a-f]{8}/);
  });

  it('a deployment with no admin is refused', async () => {
    const factory = new ContractFactory(
      certificatesInterface,
      loadArtifact('HallmarkCertificates').bytecode,
      deployer,
    );
    expect(await revertOf(factory.deploy('n', 's', '', deployer.address, ZERO, ZERO, false))).toBe(
      'HallmarkInvalidAddress',
    );
  });
});
