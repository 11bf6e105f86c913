// The re-encryption command as the production image runs it (scripts/prod-tree.ts bundles it
// into every backend's tree as dist/reencrypt.js), e.g. from a pod that already has the
// database and the keys in its environment:
//   kubectl exec deploy/hallmark-notify -- node services/notify/dist/reencrypt.js --check
// Development: `pnpm hallmark reencrypt` (scripts/reencrypt.ts), the same code.
import { reencryptCli } from './reencrypt.js';

process.exitCode = await reencryptCli(process.argv.slice(2), process.env);
