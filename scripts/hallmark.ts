// `pnpm hallmark <command>`: the hallmark CLI (packages/cli) from source.
import '../packages/cli/src/bin.js';
