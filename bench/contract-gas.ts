// Certificate contract gas, in one run on a fresh anvil:
//  1. gas per certificate of HallmarkCertificates.mintBatch for batches of 1, 10, 100 and 1,000,
//     next to a plain OpenZeppelin ERC721 minting the same batch in a `_mint` loop (the baseline),
//     and the ratio (goal: ≥ 5× cheaper per token at 100+);
//  2. the worst first-transfer gas over a batch of 1,000 (positions sampled from the first to the
//     last token, a fresh recipient each time), for both contracts (goal ≤ 100,000).
// Gas is deterministic, so one run suffices and the numbers compare across machines as they are.
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, startAnvil } from '@hallmark/devstack';
import { deployCertificates } from '../services/certificates/src/chain/contract.js';
import { anvilWallet, localProvider } from '../services/certificates/src/chain/dev-accounts.js';
import {
  PlainERC721Baseline,
  firstTransferGas,
  mintAndMeasure,
} from '../services/certificates/src/chain/gas-probe.js';

const SIZES = [1, 10, 100, 1_000];
/** Offsets in the batch of 1,000: first, around the 256-id checkpoints, middle, last. */
const TRANSFER_OFFSETS = [0, 1, 255, 256, 500, 511, 512, 768, 998, 999];

export async function benchContractGas(): Promise<void> {
  const logFile = join(tmpdir(), `hallmark-bench-anvil-${process.pid}.log`);
  const anvil = await startAnvil({ port: await freePort(), logFile });
  const provider = localProvider(anvil.rpcUrl, anvil.chainId);
  try {
    const minter = anvilWallet(2, provider);
    const holder = anvilWallet(3, provider);
    const certs = await deployCertificates(minter, { baseURI: 'https://hallmark.test/m/' });
    const plain = await PlainERC721Baseline.deploy(minter);
    // warm-up: the holder's balance slot and the counters exist, as in steady state
    await mintAndMeasure(certs, holder.address, 1);
    await plain.mintAndMeasure(holder.address, 1);

    console.log(
      `\n${'batch size'.padEnd(12)} ${'Hallmark gas/cert'.padStart(18)} ${'OZ ERC721 gas/cert'.padStart(19)} ${'× cheaper'.padStart(10)}`,
    );
    const firsts = new Map<number, { hallmark: bigint; plain: bigint }>();
    let worstRatio = Infinity;
    for (const size of SIZES) {
      const h = await mintAndMeasure(certs, holder.address, size);
      const p = await plain.mintAndMeasure(holder.address, size);
      firsts.set(size, { hallmark: h.firstTokenId, plain: p.firstTokenId });
      const hPer = Number(h.gasUsed) / size;
      const pPer = Number(p.gasUsed) / size;
      if (size >= 100) worstRatio = Math.min(worstRatio, pPer / hPer);
      console.log(
        `${String(size).padEnd(12)} ${hPer.toFixed(0).padStart(18)} ${pPer.toFixed(0).padStart(19)} ${(pPer / hPer).toFixed(2).padStart(10)}`,
      );
    }
    console.log(
      `\nper-certificate ratio at batch sizes ≥ 100: ${worstRatio.toFixed(2)}× cheaper (goal ≥ 5×)`,
    );

    const batch = firsts.get(1_000)!;
    const worst = (gas: number[]) => {
      const max = Math.max(...gas);
      return `${max} (at +${TRANSFER_OFFSETS[gas.indexOf(max)]})`;
    };
    const hGas = await firstTransferGas(
      certs.contract,
      holder,
      TRANSFER_OFFSETS.map((o) => batch.hallmark + BigInt(o)),
    );
    const pGas = await firstTransferGas(
      plain.contract,
      holder,
      TRANSFER_OFFSETS.map((o) => batch.plain + BigInt(o)),
    );
    console.log(
      `worst first-transfer gas in a batch of 1,000 (offsets ${TRANSFER_OFFSETS.join(', ')}): ` +
        `Hallmark ${worst(hGas)}, OZ ERC721 ${worst(pGas)} (goal ≤ 100,000)`,
    );
  } finally {
    provider.destroy();
    await anvil.stop();
    rmSync(logFile, { force: true });
  }
}
