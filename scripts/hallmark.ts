// `pnpm hallmark <command>`: the hallmark CLI (packages/cli) from source, plus two operator
// commands that work on the databases and NATS directly rather than through the API, so they
// live with the workspace's scripts:
//   reencrypt [--check] [--service svc,…]  every value under an older HALLMARK_ENCRYPTION_KEYS
//   key rewritten under the newest, in every service database (scripts/reencrypt.ts)
//   dlq list | dlq replay <seq>   the dead-letter stream (scripts/dlq.ts)
import path from 'node:path';

const [command, ...rest] = process.argv.slice(2);

if (command === 'reencrypt') {
  const { reencryptCommand } = await import('./reencrypt.js');
  process.exitCode = await reencryptCommand(rest);
} else if (command === 'dlq') {
  const { runDlq } = await import('./dlq.js');
  process.exitCode = await runDlq(rest);
} else {
  // pnpm runs a script in the workspace root, but `pnpm hallmark bulk submit products.csv` names
  // a file where it was typed (INIT_CWD): the CLI runs there. The dev stack's data folder stays
  // the root's `.hallmark/` unless HALLMARK_DATA_DIR says otherwise.
  process.env.HALLMARK_DATA_DIR ??= path.resolve(import.meta.dirname, '..', '.hallmark');
  if (process.env.INIT_CWD) process.chdir(process.env.INIT_CWD);
  await import('../packages/cli/src/bin.js');
}
