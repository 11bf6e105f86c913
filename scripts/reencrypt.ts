// `pnpm hallmark reencrypt [--check] [--service keys,bulk,…] [--batch 500]`
// After a new key was prepended to HALLMARK_ENCRYPTION_KEYS (and every service restarted
// with the new list), rewrites every value encrypted under an older key under the newest one,
// in every service database (<prefix>_<svc>). Idempotent and resumable (packages/kit/src/
// reencrypt.ts; the image has the same command as services/<svc>/dist/reencrypt.js).
// `--check` writes nothing and exits 1 while any value is still under an older key or does
// not decrypt: run it before removing the old key.
// Environment: DATABASE_URL (the server; default: the local one), HALLMARK_DATABASE_PREFIX
// (default hallmark), HALLMARK_ENCRYPTION_KEYS (default: the dev stack's, from .hallmark/).
import { loadOrCreateSecrets, SYSTEM_POSTGRES_URL } from '@hallmark/devstack';
import { reencryptCli } from '@hallmark/kit/reencrypt';
import path from 'node:path';

export async function reencryptCommand(args: string[]): Promise<number> {
  const dataDir = path.resolve(process.env.HALLMARK_DATA_DIR ?? '.hallmark');
  return reencryptCli(args, {
    ...process.env,
    DATABASE_URL: process.env.DATABASE_URL ?? SYSTEM_POSTGRES_URL,
    HALLMARK_ENCRYPTION_KEYS:
      process.env.HALLMARK_ENCRYPTION_KEYS ?? loadOrCreateSecrets(dataDir).encryptionKeys,
  });
}
