// Gas bounds of HallmarkCertificates on anvil: cheap batch minting (with ERC-2309 events ≤ 1,000
// gas per token at 100 and ≤ 500 at 1,000; ≤ 5,000 per token in batches of 100+ with per-token
// events) without moving the cost onto late tokens (first transfer of any token of a batch of
// 1,000 ≤ 100,000 gas, whatever its position).
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { freePort, startAnvil, type AnvilHandle } from '@hallmark/devstack';
import { Wallet, type HDNodeWallet, type JsonRpcProvider } from 'ethers';
import {
  deployCertificates,
  permitDomain,
  signTransferPermit,
  type CertificatesContract,
} from '../src/chain/contract.js';
import { anvilWallet, localProvider } from '../src/chain/dev-accounts.js';
import { firstTransferGas, mintAndMeasure } from '../src/chain/gas-probe.js';

const anvilLog = join(tmpdir(), `hallmark-anvil-contract-gas-${process.pid}.log`);
let anvil: AnvilHandle;
let provider: JsonRpcProvider;
let relayer: HDNodeWallet;
let holder: HDNodeWallet;
let certs: CertificatesContract;

async function mintBatch(to: string, quantity: number): Promise<{ first: bigint; gasUsed: bigint }> {
  const { firstTokenId, gasUsed } = await mintAndMeasure(certs, to, quantity);
  return { first: firstTokenId, gasUsed };
}

beforeAll(async () => {
  anvil = await startAnvil({
    port: await freePort(),
    logFile: anvilLog,
  });
  provider = localProvider(anvil.rpcUrl, anvil.chainId);
  relayer = anvilWallet(2, provider);
  holder = anvilWallet(3, provider);
  certs = await deployCertificates(relayer, { baseURI: 'https://hallmark.test/m/' });
  // a first batch so the measured ones are not the contract's first ever (realistic steady state)
  await mintBatch(holder.address, 3);
}, 60_000);

afterAll(async () => {
  provider?.destroy();
  await anvil?.stop();
  rmSync(anvilLog, { force: true });
});

describe('gas', () => {
  it('with ERC-2309 events a batch of 1,000 costs at most 500 gas per token, batches of 100 at most 1,000', async () => {
    // 16 consecutive batches of 100 (1,600 ids: the new 256-id bitmap words they open included)
    const gas: bigint[] = [];
    for (let i = 0; i < 16; i++) gas.push((await mintBatch(holder.address, 100)).gasUsed);
    const perToken = Number(gas.reduce((a, b) => a + b, 0n)) / 1_600;
    const big = await mintBatch(holder.address, 1_000);
    console.log(
      `mintBatch(100) × 16: ${gas.join(' ')} gas, ${perToken.toFixed(0)} per token; mintBatch(1000): ${big.gasUsed}, ${Number(big.gasUsed) / 1_000} per token`,
    );
    expect(perToken).toBeLessThanOrEqual(1_000);
    // a batch crossing a 256-id boundary writes no checkpoint: no batch of 100 costs more than
    // one opening a new bitmap word
    expect(Math.max(...gas.map(Number))).toBeLessThanOrEqual(110_000);
    expect(Number(big.gasUsed) / 1_000).toBeLessThanOrEqual(500);
  });

  it('a per-token-events deployment still costs at most 5,000 gas per token in batches of 100 and 1,000', async () => {
    const perToken = await deployCertificates(relayer, {
      baseURI: 'https://hallmark.test/m/',
      transferEvents: 'per-token',
    });
    await mintAndMeasure(perToken, holder.address, 1);
    for (const size of [100, 1_000]) {
      const { gasUsed } = await mintAndMeasure(perToken, holder.address, size);
      expect(Number(gasUsed) / size).toBeLessThanOrEqual(5_000);
    }
  });

  it('the first transfer of any token of a batch of 1,000 costs at most 100,000 gas, first to last', async () => {
    const { first } = await mintBatch(holder.address, 1_000);
    // first, second, around each 256-id checkpoint, the middle, the last two
    const offsets = [0, 1, 2, 127, 254, 255, 256, 257, 500, 511, 512, 513, 767, 768, 900, 998, 999];
    // each to a fresh recipient, whose balance slot is new (the worst case)
    const gas = await firstTransferGas(
      certs.contract,
      holder,
      offsets.map((o) => first + BigInt(o)),
    );
    const worst = Math.max(...gas);
    console.log(
      `first transferFrom gas by position ${JSON.stringify(Object.fromEntries(offsets.map((o, i) => [o, gas[i]])))}`,
    );
    expect(worst).toBeLessThanOrEqual(100_000);
    // the cost does not grow with the position (ERC721A's backward scan would): at most one more
    // cold bitmap word (2,100 gas) for the ids of a batch's second 256-id word, which have no checkpoint
    expect(Math.max(...gas) - Math.min(...gas)).toBeLessThanOrEqual(2_500);
  });

  it('a relayed transferWithPermit of the last token of a batch of 1,000 also stays at most 100,000 gas', async () => {
    const custodial = Wallet.createRandom();
    const { first } = await mintBatch(custodial.address, 1_000);
    const domain = permitDomain(anvil.chainId, certs.address);
    const deadline = Math.floor(Date.now() / 1000) + 3600;
    const gas: number[] = [];
    for (const offset of [0, 500, 999]) {
      const tokenId = first + BigInt(offset);
      const to = Wallet.createRandom().address;
      const sig = await signTransferPermit(custodial, domain, { to, tokenId, nonce: 0n, deadline });
      const tx = await certs.transferWithPermit(to, tokenId, deadline, sig);
      gas.push(Number((await tx.wait())!.gasUsed));
    }
    console.log(`first transferWithPermit gas at positions 0/500/999: ${gas.join(' / ')}`);
    expect(Math.max(...gas)).toBeLessThanOrEqual(100_000);
  });
});
