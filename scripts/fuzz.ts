// `pnpm fuzz [--runs N] [--seed S] [--url http://127.0.0.1:8080]`: the property fuzz of every
// operation (test/e2e/src/property-fuzz.ts) for longer than CI's seeded run. With --url it
// targets a running dev stack (session tokens signed with .hallmark's dev secret); without,
// it starts a test stack of its own. Then the odd-text sweep (test/e2e/src/odd-text-sweep.ts):
// every operation gets text in other scripts and lone surrogates as keys and values in its
// path, query and body. With its own stack it ends by reading the stack's process table:
// any process that exited during the run fails it. Prints each failing case as a curl command.
import { loadOrCreateSecrets, signDevToken } from '@hallmark/devstack';
import { startTestStack } from '@hallmark/e2e';
import { runOddTextSweep } from '@hallmark/e2e/odd-text-sweep';
import { runFuzz } from '@hallmark/e2e/property-fuzz';
import { newId } from '@hallmark/kit';
import path from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: { runs: { type: 'string' }, seed: { type: 'string' }, url: { type: 'string' } },
});
const runs = Number(values.runs ?? 1000);
const seed = Number(values.seed ?? Date.now() % 2 ** 31);
// Its own stack runs like the dev stack: with the chain and Restate.
const stack = values.url ? null : await startTestStack({ anvil: true, restate: true });
const baseUrl = values.url ?? stack!.gatewayUrl;
const secret = values.url
  ? loadOrCreateSecrets(path.resolve(process.env.HALLMARK_DATA_DIR ?? '.hallmark')).jwtSecret
  : stack!.secrets.jwtSecret;
console.log(`fuzz: ${runs} cases against ${baseUrl}, seed ${seed}`);
const started = Date.now();
try {
  const target = {
    baseUrl,
    session: () => signDevToken(secret, { ent: newId('enterprise'), sub: 'fuzz', role: 'owner' }),
  };
  const before = stack?.processTable();
  const log = (line: string) => console.log(`\nFAIL ${line}`);
  const result = await runFuzz(target, { runs, seed, log });
  const sweep = await runOddTextSweep(target, { log });
  const fiveXx = [result.statuses, sweep.statuses]
    .flatMap((statuses) => Object.entries(statuses))
    .filter(([s]) => s.startsWith('5'))
    .reduce((n, [, c]) => n + c, 0);
  // The stack's own process table: a process that exited, or runs under another pid, failed.
  const exits = before
    ? stack!
        .processTable()
        .filter((p) => p.exited || !before.some((b) => b.name === p.name && b.pid === p.pid))
    : [];
  for (const p of exits)
    console.log(`\nFAIL process ${p.name} (pid ${p.pid}) exited: ${JSON.stringify(p.exited)}`);
  console.log(
    `\nfuzz: ${result.cases} cases in ${Math.round((Date.now() - started) / 1000)} s, ` +
      `${result.failures.length} failures; odd-text sweep: ${sweep.cases} cases, ${sweep.failures.length} failures; ` +
      `${fiveXx} 5xx; ${before ? `${exits.length} process exits` : 'process exits not checked (--url)'}; ` +
      `statuses ${JSON.stringify(result.statuses)}; seed ${seed}`,
  );
  process.exitCode = result.failures.length + sweep.failures.length + exits.length === 0 ? 0 : 1;
} finally {
  await stack?.close();
}
