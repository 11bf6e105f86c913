// `pnpm bench [--smoke] [name…]`: runs the benchmarks (all by default) and prints their ratios.
// `--smoke` (or HALLMARK_BENCH_SMOKE=1) runs each with small counts and judges no goal; CI runs
// it (test/bench/) so a bench that no longer runs fails the build. Nothing that reads the mode
// (bench/lib.ts) may load before it is set: benches and the stack helper load on demand.
import { BENCHES } from './benches.js';

const args = process.argv.slice(2);
if (args.includes('--smoke')) process.env.HALLMARK_BENCH_SMOKE = '1';
const smoke = process.env.HALLMARK_BENCH_SMOKE === '1';
const wanted = args.filter((a) => a !== '--smoke');

const unknown = wanted.filter((name) => !(name in BENCHES));
if (unknown.length > 0) {
  console.error(`unknown bench: ${unknown.join(', ')} (benches: ${Object.keys(BENCHES).join(', ')})`);
  process.exit(2);
}
try {
  for (const [name, run] of Object.entries(BENCHES)) {
    if (wanted.length > 0 && !wanted.includes(name)) continue;
    console.log(`\n### bench: ${name}${smoke ? ' (smoke: small counts, no goals judged)' : ''}`);
    const started = performance.now();
    await run();
    console.log(`### bench ${name} done in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  }
} finally {
  // Loaded here, not at the top: it reads the mode, which is set above.
  await (await import('./stack.js')).closeSharedStack();
}
process.exit(process.exitCode ?? 0); // a bench with unintended non-2xx, lost deliveries or over-redemption sets 1
