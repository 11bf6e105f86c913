// Certificate contract gas, in one run on a fresh anvil:
//  1. gas per certificate of HallmarkCertificates.mintBatch for batches of 1, 10, 100 and 1,000, in
//     both event modes (ERC-2309: one ConsecutiveTransfer per batch, the default; per-token: one
//     Transfer per token, the deployment option), next to a plain OpenZeppelin ERC721 minting the same
//     batch in a `_mint` loop (the baseline), and the ratios (goals: ≥ 5× cheaper per token at 100+;
//     with ERC-2309 ≤ 1,000 gas/cert at 100 and ≤ 500 at 1,000);
//  2. the worst first-transfer gas over a batch of 1,000 (positions sampled from the first to the
//     last token, a fresh recipient each time), for each contract (goal ≤ 100,000).
// A batch's cost depends a little on where it starts (the batch that opens a new 256-id bitmap word
// pays a new slot), so sizes 10 and 100 are the mean of consecutive batches covering ≥ 1,280 ids (five
// bitmap words: steady state), size 1 the mean of 300 batches.
// Gas is deterministic, so one run suffices and the numbers compare across machines as they are.
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, startAnvil } from '@hallmark/devstack';
import type { Contract, Signer } from 'ethers';
import {
  deployCertificates,
  type CertificatesContract,
  type TransferEventMode,
} from '../services/certificates/src/chain/contract.js';
import { anvilWallet, localProvider } from '../services/certificates/src/chain/dev-accounts.js';
import {
  PlainERC721Baseline,
  firstTransferGas,
  mintAndMeasure,
  type MintedGas,
} from '../services/certificates/src/chain/gas-probe.js';
import { SMOKE, verdict } from './lib.js';

const SIZES = [1, 10, 100, 1_000];
/** Offsets in the batch of 1,000: first, around the 256-id checkpoints, middle, last. */
const TRANSFER_OFFSETS = [0, 1, 255, 256, 500, 511, 512, 768, 998, 999];

const repeatsOf = (size: number) => (SMOKE || size >= 1_000 ? 1 : size === 1 ? 300 : Math.ceil(1_280 / size));

/** Mean gas per certificate over `repeatsOf(size)` consecutive batches; the last batch's first id. */
async function perCert(
  mint: (size: number) => Promise<MintedGas>,
  size: number,
): Promise<{ perCert: number; firstTokenId: bigint }> {
  let gas = 0n;
  let last: MintedGas | undefined;
  const repeats = repeatsOf(size);
  for (let i = 0; i < repeats; i++) {
    last = await mint(size);
    gas += last.gasUsed;
  }
  return { perCert: Number(gas) / (size * repeats), firstTokenId: last!.firstTokenId };
}

export async function benchContractGas(): Promise<void> {
  const logFile = join(tmpdir(), `hallmark-bench-anvil-${process.pid}.log`);
  const anvil = await startAnvil({ port: await freePort(), logFile });
  const provider = localProvider(anvil.rpcUrl, anvil.chainId);
  try {
    const minter = anvilWallet(2, provider);
    const holder = anvilWallet(3, provider);
    const modes: Record<TransferEventMode, CertificatesContract> = {
      erc2309: await deployCertificates(minter, { baseURI: 'https://hallmark.test/m/' }),
      'per-token': await deployCertificates(minter, {
        baseURI: 'https://hallmark.test/m/',
        transferEvents: 'per-token',
      }),
    };
    const plain = await PlainERC721Baseline.deploy(minter);
    // warm-up: the holder's balance slot and the counters exist, as in steady state
    for (const certs of Object.values(modes)) await mintAndMeasure(certs, holder.address, 1);
    await plain.mintAndMeasure(holder.address, 1);

    const col = (s: string, w: number) => s.padStart(w);
    console.log(
      `\n${'batch size'.padEnd(11)}${col('ERC-2309 gas/cert', 18)}${col('per-token gas/cert', 19)}` +
        `${col('OZ ERC721 gas/cert', 19)}${col('ERC-2309 × cheaper', 19)}${col('per-token ×', 12)}`,
    );
    const firsts = new Map<string, bigint>();
    const worstRatio = { erc2309: Infinity, 'per-token': Infinity };
    const erc2309PerCert = new Map<number, number>();
    for (const size of SIZES) {
      const e = await perCert((n) => mintAndMeasure(modes.erc2309, holder.address, n), size);
      const t = await perCert((n) => mintAndMeasure(modes['per-token'], holder.address, n), size);
      const p = await perCert((n) => plain.mintAndMeasure(holder.address, n), size);
      firsts.set(`erc2309:${size}`, e.firstTokenId);
      firsts.set(`per-token:${size}`, t.firstTokenId);
      firsts.set(`plain:${size}`, p.firstTokenId);
      erc2309PerCert.set(size, e.perCert);
      if (size >= 100) {
        worstRatio.erc2309 = Math.min(worstRatio.erc2309, p.perCert / e.perCert);
        worstRatio['per-token'] = Math.min(worstRatio['per-token'], p.perCert / t.perCert);
      }
      console.log(
        `${String(size).padEnd(11)}${col(e.perCert.toFixed(0), 18)}${col(t.perCert.toFixed(0), 19)}` +
          `${col(p.perCert.toFixed(0), 19)}${col((p.perCert / e.perCert).toFixed(2), 19)}` +
          `${col((p.perCert / t.perCert).toFixed(2), 12)}`,
      );
    }
    const atMost = (value: number, goal: number) => verdict(value <= goal, 'MISSED');
    const at100 = erc2309PerCert.get(100)!;
    const at1000 = erc2309PerCert.get(1_000)!;
    console.log(
      `\nper-certificate ratio at batch sizes ≥ 100 (goal ≥ 5×): ERC-2309 ${worstRatio.erc2309.toFixed(2)}× cheaper, ` +
        `per-token ${worstRatio['per-token'].toFixed(2)}× cheaper`,
    );
    console.log(
      `ERC-2309 gas/cert: ${at100.toFixed(0)} at 100 (goal ≤ 1,000: ${atMost(at100, 1_000)}), ` +
        `${at1000.toFixed(0)} at 1,000 (goal ≤ 500: ${atMost(at1000, 500)})`,
    );

    const worst = (gas: number[]) => {
      const max = Math.max(...gas);
      return `${max} (at +${TRANSFER_OFFSETS[gas.indexOf(max)]})`;
    };
    const transfers = (contract: Contract, first: bigint, from: Signer) =>
      firstTransferGas(
        contract,
        from,
        TRANSFER_OFFSETS.map((o) => first + BigInt(o)),
      );
    const eGas = await transfers(modes.erc2309.contract, firsts.get('erc2309:1000')!, holder);
    const tGas = await transfers(modes['per-token'].contract, firsts.get('per-token:1000')!, holder);
    const pGas = await transfers(plain.contract, firsts.get('plain:1000')!, holder);
    console.log(
      `worst first-transfer gas in a batch of 1,000 (offsets ${TRANSFER_OFFSETS.join(', ')}; goal ≤ 100,000): ` +
        `ERC-2309 ${worst(eGas)} (${atMost(Math.max(...eGas), 100_000)}), per-token ${worst(tGas)}, ` +
        `OZ ERC721 ${worst(pGas)}`,
    );
  } finally {
    provider.destroy();
    await anvil.stop();
    rmSync(logFile, { force: true });
  }
}
