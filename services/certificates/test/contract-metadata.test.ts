// HallmarkCertificates' marketplace surface on anvil: ERC-4906 announcements of off-chain
// metadata changes (admin or minter only, minted ids only) and the per-batch event mode
// (mintBatch's `perTokenEvents`: one ERC-2309 ConsecutiveTransfer or a Transfer per token; a
// per-token-only deployment never emits ERC-2309), with the gas per certificate of each mode.
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { freePort, startAnvil, type AnvilHandle } from '@hallmark/devstack';
import {
  hexlify,
  randomBytes,
  type HDNodeWallet,
  type JsonRpcProvider,
  type TransactionReceipt,
} from 'ethers';
import {
  BATCH_METADATA_UPDATE_TOPIC,
  CertificatesContract,
  INTERFACE_IDS,
  METADATA_UPDATE_TOPIC,
  buildBatchTree,
  certificatesInterface,
  deployCertificates,
  parseOwnershipChanges,
  receiptLogs,
  type TransferEventMode,
} from '../src/chain/contract.js';
import { anvilWallet, localProvider } from '../src/chain/dev-accounts.js';

const anvilLog = join(tmpdir(), `hallmark-anvil-contract-metadata-${process.pid}.log`);
let anvil: AnvilHandle;
let provider: JsonRpcProvider;
let admin: HDNodeWallet;
let relayer: HDNodeWallet;
let holder: HDNodeWallet;
let stranger: HDNodeWallet;
let certs: CertificatesContract;

const randomHash = () => hexlify(randomBytes(32));

async function mint(
  c: CertificatesContract,
  quantity: number,
  transferEvents?: TransferEventMode,
): Promise<{ first: bigint; receipt: TransactionReceipt }> {
  const tree = buildBatchTree(Array.from({ length: quantity }, randomHash));
  const tx = await c.connect(relayer).mintBatch({
    to: holder.address,
    quantity,
    merkleRoot: tree.root,
    batchKey: randomHash(),
    transferEvents,
  });
  const receipt = (await tx.wait())!;
  return { first: c.parseBatchMinted(receipt)[0]!.firstTokenId, receipt };
}

/** The ERC-4906 events of a receipt, as [name, from, to] (MetadataUpdate: from = to). */
function metadataEvents(receipt: TransactionReceipt): [string, bigint, bigint][] {
  return receiptLogs(receipt)
    .filter((l) => l.topics[0] === METADATA_UPDATE_TOPIC || l.topics[0] === BATCH_METADATA_UPDATE_TOPIC)
    .map((l) => {
      const p = certificatesInterface.parseLog({ topics: [...l.topics], data: l.data })!;
      return p.name === 'MetadataUpdate'
        ? [p.name, p.args[0] as bigint, p.args[0] as bigint]
        : [p.name, p.args[0] as bigint, p.args[1] as bigint];
    });
}

async function revertOf(p: Promise<unknown>): Promise<string | undefined> {
  try {
    await (await (p as Promise<{ wait(): Promise<unknown> }>)).wait();
  } catch (err) {
    return CertificatesContract.revertName(err) ?? String(err);
  }
  return undefined;
}

beforeAll(async () => {
  anvil = await startAnvil({ port: await freePort(), logFile: anvilLog });
  provider = localProvider(anvil.rpcUrl, anvil.chainId);
  [admin, relayer, holder, stranger] = [1, 2, 3, 6].map((i) => anvilWallet(i, provider)) as [
    HDNodeWallet,
    HDNodeWallet,
    HDNodeWallet,
    HDNodeWallet,
  ];
  certs = await deployCertificates(admin, { baseURI: 'https://hallmark.test/m/', minter: relayer.address });
}, 60_000);

afterAll(async () => {
  provider?.destroy();
  await anvil?.stop();
  rmSync(anvilLog, { force: true });
});

describe('ERC-4906 announcements', () => {
  it('supports ERC-4906 (0x49064906)', async () => {
    expect(INTERFACE_IDS.erc4906).toBe('0x49064906');
    expect(await certs.supportsInterface('0x49064906')).toBe(true);
  });

  it('the relayer announces one token with MetadataUpdate and a range with BatchMetadataUpdate, in order', async () => {
    const { first } = await mint(certs, 10);
    const tx = await certs.connect(relayer).announceMetadataUpdate([
      { from: first + 2n, to: first + 2n },
      { from: first + 4n, to: first + 9n },
      { from: first, to: first },
    ]);
    expect(metadataEvents((await tx.wait())!)).toEqual([
      ['MetadataUpdate', first + 2n, first + 2n],
      ['BatchMetadataUpdate', first + 4n, first + 9n],
      ['MetadataUpdate', first, first],
    ]);
  });

  it('the admin may announce too; a holder or a stranger may not (HallmarkNotAdminOrMinter)', async () => {
    const { first } = await mint(certs, 1);
    const one = [{ from: first, to: first }];
    const receipt = (await (await certs.connect(admin).announceMetadataUpdate(one)).wait())!;
    expect(metadataEvents(receipt)).toEqual([['MetadataUpdate', first, first]]);
    for (const who of [holder, stranger]) {
      expect(await revertOf(certs.connect(who).announceMetadataUpdate(one))).toBe('HallmarkNotAdminOrMinter');
    }
  });

  it('refuses ranges that name no minted ids: id 0, reversed, or past the last minted id', async () => {
    const next = await certs.nextTokenId();
    const r = certs.connect(relayer);
    for (const bad of [
      { from: 0n, to: 1n },
      { from: 3n, to: 2n },
      { from: 1n, to: next },
      { from: next, to: next },
    ]) {
      expect(await revertOf(r.announceMetadataUpdate([{ from: 1n, to: 1n }, bad]))).toBe(
        'HallmarkInvalidTokenRange',
      );
    }
    expect(await revertOf(r.contract.getFunction('announceMetadataUpdate').send([1n, 2n], [1n]))).toBe(
      'HallmarkRangeLengthMismatch',
    );
  });

  it('setBaseURI announces every token: BatchMetadataUpdate(1, 2^256 - 1)', async () => {
    const receipt = (await (await certs.connect(admin).setBaseURI('https://hallmark.test/n/')).wait())!;
    expect(metadataEvents(receipt)).toEqual([['BatchMetadataUpdate', 1n, 2n ** 256n - 1n]]);
  });
});

describe('per-batch event mode', () => {
  it('one contract mints one batch with a ConsecutiveTransfer and the next with a Transfer per token', async () => {
    const a = await mint(certs, 5, 'erc2309');
    expect(parseOwnershipChanges(a.receipt, certs.address).map((c) => c.event)).toEqual([
      'ConsecutiveTransfer',
    ]);
    const b = await mint(certs, 5, 'per-token');
    const changes = parseOwnershipChanges(b.receipt, certs.address);
    expect(changes.map((c) => [c.event, c.firstTokenId])).toEqual(
      [0, 1, 2, 3, 4].map((i) => ['Transfer', b.first + BigInt(i)]),
    );
  });

  it('a per-token-only deployment emits a Transfer per token even for a batch that asks for ERC-2309', async () => {
    const perToken = await deployCertificates(admin, {
      baseURI: 'https://hallmark.test/m/',
      minter: relayer.address,
      transferEvents: 'per-token',
    });
    const { receipt } = await mint(perToken, 3, 'erc2309');
    expect(parseOwnershipChanges(receipt, perToken.address).map((c) => c.event)).toEqual([
      'Transfer',
      'Transfer',
      'Transfer',
    ]);
  });

  it('gas per certificate of each mode at 1, 100 and 1,000 (the table in docs/marketplaces.md)', async () => {
    // steady state: batches after the contract's first ones
    await mint(certs, 3);
    const table: Record<string, Record<number, number>> = { erc2309: {}, 'per-token': {} };
    for (const mode of ['erc2309', 'per-token'] as const) {
      for (const size of [1, 100, 1_000]) {
        const { receipt } = await mint(certs, size, mode);
        table[mode]![size] = Math.round(Number(receipt.gasUsed) / size);
      }
    }
    console.log(`gas per certificate ${JSON.stringify(table)}`);
    // per-token events cost ~2k per extra token (a 4-topic log) and never less than ERC-2309
    for (const size of [100, 1_000]) {
      expect(table['per-token']![size]!).toBeGreaterThan(table.erc2309![size]!);
      expect(table['per-token']![size]!).toBeLessThanOrEqual(3_500);
    }
    expect(table.erc2309![1_000]!).toBeLessThanOrEqual(500);

    // an announcement: one token, one range of 1,000, 100 separate tokens
    const { first } = await mint(certs, 200, 'erc2309');
    const announce = async (ranges: { from: bigint; to: bigint }[]) =>
      Number((await (await certs.connect(relayer).announceMetadataUpdate(ranges)).wait())!.gasUsed);
    const one = await announce([{ from: first, to: first }]);
    const range = await announce([{ from: first, to: first + 199n }]);
    const hundred = await announce(
      Array.from({ length: 100 }, (_, i) => ({ from: first + BigInt(2 * i), to: first + BigInt(2 * i) })),
    );
    console.log(`announceMetadataUpdate gas: one token ${one}, one range ${range}, 100 tokens ${hundred}`);
    expect(range).toBeLessThanOrEqual(one + 1_000); // a range costs what one token does
    expect(hundred / 100).toBeLessThanOrEqual(3_000);
  }, 120_000);
});
