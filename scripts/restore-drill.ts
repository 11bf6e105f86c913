// `pnpm restore-drill`: the restore drill on the running dev stack (`pnpm start`): backs up every
// service database with pg_dump, restores the dumps into fresh databases under a new prefix,
// starts a second stack on them and checks that the certificates minted before the backup are
// served as before (packages/devstack/src/restore-drill.ts; docs/runbooks/backup-and-restore.md).
// Exit 0 when every checked certificate is served as before.
//
//   pnpm restore-drill [--prefix hallmark] [--gateway http://127.0.0.1:8080] [--sample 5]
//                      [--backup-dir DIR] [--keep]
import {
  ANVIL_CHAIN_ID,
  ANVIL_RELAYER_KEY,
  loadOrCreateSecrets,
  runRestoreDrill,
  SYSTEM_POSTGRES_URL,
} from '@hallmark/devstack';
import path from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    prefix: { type: 'string', default: process.env.HALLMARK_DATABASE_PREFIX ?? 'hallmark' },
    gateway: { type: 'string', default: `http://127.0.0.1:${process.env.HALLMARK_PORT ?? 8080}` },
    sample: { type: 'string', default: '5' },
    'backup-dir': { type: 'string' },
    keep: { type: 'boolean', default: false },
  },
});
const dataDir = path.resolve(process.env.HALLMARK_DATA_DIR ?? '.hallmark');
const secrets = loadOrCreateSecrets(dataDir);
// What `pnpm start` runs with (scripts/start.ts, devstack stack.ts), a set variable first.
const env: Record<string, string> = {
  HALLMARK_DATA_DIR: dataDir,
  HALLMARK_JWT_SECRET: secrets.jwtSecret,
  HALLMARK_ENCRYPTION_KEYS: secrets.encryptionKeys,
  HALLMARK_PUBLIC_URL: process.env.HALLMARK_PUBLIC_URL ?? values.gateway!,
  HALLMARK_CHAIN_RPC_URL: process.env.HALLMARK_CHAIN_RPC_URL ?? 'http://127.0.0.1:8545',
  HALLMARK_CHAIN_ID: process.env.HALLMARK_CHAIN_ID ?? String(ANVIL_CHAIN_ID),
  HALLMARK_RELAYER_KEY: process.env.HALLMARK_RELAYER_KEY ?? ANVIL_RELAYER_KEY,
  ...(process.env.HALLMARK_CONTRACT_ADDRESS
    ? { HALLMARK_CONTRACT_ADDRESS: process.env.HALLMARK_CONTRACT_ADDRESS }
    : {}),
  ...(process.env.HALLMARK_MEDIA_DIR ? { HALLMARK_MEDIA_DIR: process.env.HALLMARK_MEDIA_DIR } : {}),
};

try {
  const result = await runRestoreDrill({
    databaseUrl: process.env.DATABASE_URL ?? SYSTEM_POSTGRES_URL,
    prefix: values.prefix!,
    gatewayUrl: values.gateway!,
    env,
    sample: Number(values.sample),
    backupDir: values['backup-dir'] && path.resolve(values['backup-dir']),
    keep: values.keep,
  });
  const { dump, restore, start, verify } = result.timings;
  console.log(
    `restore-drill: backup ${dump} ms; restore ${restore} ms + start ${start} ms + verify ${verify} ms ` +
      `= ${restore + start + verify} ms for ${result.bytes} bytes of dumps`,
  );
  process.exit(result.ok ? 0 : 1);
} catch (err) {
  console.error(`restore-drill: ${(err as Error).message}`);
  process.exit(2);
}
