// Dev-stack secrets, generated once and kept in the data dir so that data encrypted or
// tokens signed in one run stay valid in the next. Explicit env values always win.
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export interface StackSecrets {
  jwtSecret: string;
  encryptionKeys: string;
  demoEnterpriseId: string;
}

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const base62 = (n: number) => Array.from(randomBytes(n), (b) => BASE62[b % 62]).join('');

/** Written by `pnpm start` when HALLMARK_JWT_SECRET came from its environment: its fingerprint. */
export const JWT_SECRET_FINGERPRINT_FILE = 'jwt-secret-from-env.sha256';

export function secretFingerprint(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

/** The fingerprint of the env secret the stack in `dataDir` runs with, if it was given one. */
export function envSecretFingerprint(dataDir: string): string | undefined {
  const file = path.join(dataDir, JWT_SECRET_FINGERPRINT_FILE);
  return existsSync(file) ? readFileSync(file, 'utf8').trim() : undefined;
}

/** The secrets a dev stack keeps in `dataDir`, read only (undefined when it has none). */
export function readStoredSecrets(dataDir: string): Partial<StackSecrets> | undefined {
  const file = path.join(dataDir, 'secrets.json');
  if (!existsSync(file)) return undefined;
  return JSON.parse(readFileSync(file, 'utf8')) as Partial<StackSecrets>;
}

export function loadOrCreateSecrets(dataDir: string, env: NodeJS.ProcessEnv = process.env): StackSecrets {
  const file = path.join(dataDir, 'secrets.json');
  let stored: Partial<StackSecrets> = {};
  if (existsSync(file)) stored = JSON.parse(readFileSync(file, 'utf8')) as Partial<StackSecrets>;
  const secrets: StackSecrets = {
    jwtSecret: stored.jwtSecret ?? randomBytes(32).toString('hex'),
    encryptionKeys: stored.encryptionKeys ?? randomBytes(32).toString('hex'),
    demoEnterpriseId: stored.demoEnterpriseId ?? `ent_${base62(24)}`,
  };
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(file, JSON.stringify(secrets, null, 2), { mode: 0o600 });
  return {
    ...secrets,
    jwtSecret: env.HALLMARK_JWT_SECRET ?? secrets.jwtSecret,
    encryptionKeys: env.HALLMARK_ENCRYPTION_KEYS ?? secrets.encryptionKeys,
  };
}
