// `pnpm bench [name…]`: runs the benchmarks (all by default) and prints their ratios.
import { benchGateway } from './gateway.js';
import { benchContractGas } from './contract-gas.js';
import { benchVouchers } from './vouchers.js';
import { benchNotify } from './notify.js';
import { benchPublicRead } from './public-read.js';
import { benchBulk } from './bulk.js';

const benches: Record<string, () => Promise<void>> = {
  gateway: benchGateway,
  'contract-gas': benchContractGas,
  vouchers: benchVouchers,
  notify: benchNotify,
  'public-read': benchPublicRead,
  bulk: benchBulk,
};

const wanted = process.argv.slice(2);
for (const [name, run] of Object.entries(benches)) {
  if (wanted.length > 0 && !wanted.includes(name)) continue;
  console.log(`\n### bench: ${name}`);
  await run();
}
process.exit(process.exitCode ?? 0); // a bench with unintended non-2xx sets 1
