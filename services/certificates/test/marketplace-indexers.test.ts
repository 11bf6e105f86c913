// What marketplace indexers see of each event mode, on anvil: two indexers follow the contract's
// logs block by block as a third party would, knowing only the standard events: one reads the
// ERC-721 `Transfer` alone, the other also ERC-2309 `ConsecutiveTransfer`. A batch minted per
// token, one minted with ERC-2309, and that batch after one of its tokens was sold: which tokens
// each indexer finds. The table is read from docs/marketplaces.md ("What indexers find") and must
// equal what the indexers found, so the documentation and the behaviour cannot drift apart.
import { readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path, { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { freePort, startAnvil, type AnvilHandle } from '@hallmark/devstack';
import { Interface, hexlify, randomBytes, type HDNodeWallet, type JsonRpcProvider } from 'ethers';
import {
  buildBatchTree,
  deployCertificates,
  type CertificatesContract,
  type TransferEventMode,
} from '../src/chain/contract.js';
import { anvilWallet, localProvider } from '../src/chain/dev-accounts.js';

const DOC = path.resolve(import.meta.dirname, '../../../docs/marketplaces.md');
const anvilLog = join(tmpdir(), `hallmark-anvil-marketplace-indexers-${process.pid}.log`);
const ZERO = '0x0000000000000000000000000000000000000000';

/** The standard events, as an indexer that knows nothing of Hallmark declares them. */
const ERC721 = new Interface([
  'event Transfer(address indexed from, address indexed to, uint256 indexed tokenId)',
]);
const ERC2309 = new Interface([
  'event ConsecutiveTransfer(uint256 indexed fromTokenId, uint256 toTokenId, address indexed fromAddress, address indexed toAddress)',
]);

/**
 * A log-following indexer: scans new blocks for the events it knows and keeps token → owner.
 * `erc2309`: whether it also applies ConsecutiveTransfer ranges.
 */
class Indexer {
  private next = 0;
  readonly owners = new Map<bigint, string>();

  constructor(
    private readonly provider: JsonRpcProvider,
    private readonly contract: string,
    private readonly erc2309: boolean,
  ) {}

  async follow(): Promise<void> {
    const head = await this.provider.getBlockNumber();
    const topics = [ERC721.getEvent('Transfer')!.topicHash];
    if (this.erc2309) topics.push(ERC2309.getEvent('ConsecutiveTransfer')!.topicHash);
    const logs = await this.provider.getLogs({
      address: this.contract,
      topics: [topics],
      fromBlock: this.next,
      toBlock: head,
    });
    for (const log of logs) {
      const t = ERC721.parseLog(log) ?? (this.erc2309 ? ERC2309.parseLog(log) : null);
      if (!t) continue;
      const [first, last, to] =
        t.name === 'Transfer'
          ? [t.args.tokenId as bigint, t.args.tokenId as bigint, t.args.to as string]
          : [t.args.fromTokenId as bigint, t.args.toTokenId as bigint, t.args.toAddress as string];
      for (let id = first; id <= last; id++) {
        if (to === ZERO) this.owners.delete(id);
        else this.owners.set(id, to);
      }
    }
    this.next = head + 1;
  }

  /** The ids it knows in [first, last], as the doc writes them ("1, 2, 3" or "none"). */
  found(first: bigint, last: bigint): string {
    const ids = [...this.owners.keys()]
      .filter((id) => id >= first && id <= last)
      .sort((a, b) => (a < b ? -1 : 1));
    return ids.length ? ids.join(', ') : 'none';
  }
}

/** The rows of the first table under `## heading` in the doc, as cell arrays (header and rule skipped). */
function docTable(heading: string): string[][] {
  const md = readFileSync(DOC, 'utf8');
  const start = md.indexOf(`\n## ${heading}\n`);
  if (start < 0) throw new Error(`docs/marketplaces.md has no section "${heading}"`);
  const lines = md.slice(start).split('\n');
  const first = lines.findIndex((l) => l.startsWith('|'));
  const table: string[] = [];
  for (const l of lines.slice(first)) {
    if (!l.startsWith('|')) break;
    table.push(l);
  }
  return table.slice(2).map((l) =>
    l
      .split('|')
      .slice(1, -1)
      .map((c) => c.trim().replace(/`/g, '')),
  );
}

let anvil: AnvilHandle;
let provider: JsonRpcProvider;
let admin: HDNodeWallet;
let holder: HDNodeWallet;
let buyer: HDNodeWallet;
let certs: CertificatesContract;

beforeAll(async () => {
  anvil = await startAnvil({ port: await freePort(), logFile: anvilLog });
  provider = localProvider(anvil.rpcUrl, anvil.chainId);
  [admin, holder, buyer] = [1, 3, 4].map((i) => anvilWallet(i, provider)) as [
    HDNodeWallet,
    HDNodeWallet,
    HDNodeWallet,
  ];
  // a contract whose batches choose their events (what the service deploys)
  certs = await deployCertificates(admin, { baseURI: 'https://hallmark.test/m/' });
}, 60_000);

afterAll(async () => {
  provider?.destroy();
  await anvil?.stop();
  rmSync(anvilLog, { force: true });
});

async function mint(quantity: number, transferEvents: TransferEventMode): Promise<bigint> {
  const tree = buildBatchTree(Array.from({ length: quantity }, () => hexlify(randomBytes(32))));
  const tx = await certs.mintBatch({
    to: holder.address,
    quantity,
    merkleRoot: tree.root,
    batchKey: hexlify(randomBytes(32)),
    transferEvents,
  });
  return certs.parseBatchMinted((await tx.wait())!)[0]!.firstTokenId;
}

describe('marketplace indexers', () => {
  it('a Transfer-only indexer and an ERC-2309-aware one find the tokens docs/marketplaces.md says, in each mode', async () => {
    const transferOnly = new Indexer(provider, certs.address, false);
    const aware = new Indexer(provider, certs.address, true);
    const followBoth = () => Promise.all([transferOnly.follow(), aware.follow()]);
    const row = (label: string, first: bigint, last: bigint) => [
      label,
      `${first}–${last}`,
      transferOnly.found(first, last),
      aware.found(first, last),
    ];
    const found: string[][] = [];

    const a = await mint(3, 'per-token');
    await followBoth();
    found.push(row('per_token', a, a + 2n));

    const b = await mint(3, 'erc2309');
    await followBoth();
    found.push(row('consecutive', b, b + 2n));

    // the middle token of the ERC-2309 batch is sold: its transfer is a plain ERC-721 Transfer
    await (await certs.connect(holder).transferFrom(holder.address, buyer.address, b + 1n)).wait();
    await followBoth();
    found.push(row(`consecutive, then token ${b + 1n} sold`, b, b + 2n));
    // both indexers agree with the chain on the sold token's owner
    expect(transferOnly.owners.get(b + 1n)).toBe(buyer.address);
    expect(aware.owners.get(b + 1n)).toBe(buyer.address);
    expect(aware.owners.get(b)).toBe(await certs.ownerOf(b));

    console.log(`indexers found ${JSON.stringify(found)}`);
    expect(found).toEqual(docTable('What indexers find'));
  }, 60_000);
});
