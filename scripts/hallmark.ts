// `pnpm hallmark <command>`: small operator commands for the dev stack.
//   token --ent ent_… --sub user-1 [--role owner|admin|member] [--email a@b]  prints a dev JWT
//   (valid 12 hours: the gateway refuses sessions longer than HALLMARK_SESSION_MAX_TTL_SEC)
import { loadOrCreateSecrets, signDevToken } from '@hallmark/devstack';
import path from 'node:path';
import { parseArgs } from 'node:util';

const [command, ...rest] = process.argv.slice(2);
const dataDir = path.resolve(process.env.HALLMARK_DATA_DIR ?? '.hallmark');

if (command === 'token') {
  const { values } = parseArgs({
    args: rest,
    options: {
      ent: { type: 'string' },
      sub: { type: 'string' },
      role: { type: 'string' },
      email: { type: 'string' },
    },
  });
  const secrets = loadOrCreateSecrets(dataDir);
  const role = (values.role ?? 'owner') as 'owner' | 'admin' | 'member';
  console.log(
    await signDevToken(secrets.jwtSecret, {
      ent: values.ent ?? secrets.demoEnterpriseId,
      sub: values.sub ?? 'dev-user',
      role,
      email: values.email,
    }),
  );
} else {
  console.error(
    'usage: pnpm hallmark token [--ent ent_…] [--sub user] [--role owner|admin|member] [--email addr]',
  );
  process.exit(2);
}
