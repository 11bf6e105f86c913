// `pnpm hallmark <command>`: the hallmark CLI (packages/cli) from source, plus two operator
// commands that work on the databases and NATS directly rather than through the API, so they
// live with the workspace's scripts:
//   reencrypt [--check] [--service svc,…]  every value under an older HALLMARK_ENCRYPTION_KEYS
//   key rewritten under the newest, in every service database (scripts/reencrypt.ts)
//   dlq list | dlq replay <seq>   the dead-letter stream (scripts/dlq.ts)
const [command, ...rest] = process.argv.slice(2);

if (command === 'reencrypt') {
  const { reencryptCommand } = await import('./reencrypt.js');
  process.exitCode = await reencryptCommand(rest);
} else if (command === 'dlq') {
  const { runDlq } = await import('./dlq.js');
  process.exitCode = await runDlq(rest);
} else {
  await import('../packages/cli/src/bin.js');
}
