// The dev stack's session signing for `hallmark token` and `hallmark shop`: the secret the
// running stack verifies with and the enterprise to sign for. HALLMARK_JWT_SECRET wins (the
// stack was started with it), then the stack's data folder (HALLMARK_DATA_DIR, else
// ./.hallmark, where `pnpm start` keeps it). Read only: a token for an enterprise no stack
// knows, or signed with a secret no stack holds, would only be refused later.
import { envSecretFingerprint, readStoredSecrets, secretFingerprint } from '@hallmark/devstack/secrets';
import { signDevToken } from '@hallmark/devstack/tokens';
import path from 'node:path';

export interface DevSigner {
  secret: string;
  enterpriseId: string;
  /** Where each came from, for messages. */
  source: string;
}

export function devDataDir(env: NodeJS.ProcessEnv = process.env): string {
  return path.resolve(env.HALLMARK_DATA_DIR ?? '.hallmark');
}

/** Throws a message that says what to set when the secret or the enterprise is unknown. */
export function devSigner(ent: string | undefined, env: NodeJS.ProcessEnv = process.env): DevSigner {
  const dir = devDataDir(env);
  const stored = readStoredSecrets(dir);
  const secret = env.HALLMARK_JWT_SECRET || stored?.jwtSecret;
  const enterpriseId = ent ?? stored?.demoEnterpriseId;
  const started = envSecretFingerprint(dir);
  if (started && (!env.HALLMARK_JWT_SECRET || secretFingerprint(env.HALLMARK_JWT_SECRET) !== started)) {
    throw new Error(
      `The stack in ${dir} verifies sessions with the HALLMARK_JWT_SECRET it was started with: ` +
        (env.HALLMARK_JWT_SECRET ? 'the one set here is another.' : 'set the same one here.'),
    );
  }
  if (!secret) {
    throw new Error(
      `No signing secret: set HALLMARK_JWT_SECRET to the one the stack runs with, or HALLMARK_DATA_DIR ` +
        `to its data folder (no secrets.json in ${dir}; \`pnpm start\` writes one there).`,
    );
  }
  if (!enterpriseId) {
    throw new Error(
      `No enterprise: pass --ent ent_… (no dev stack data folder at ${dir} to take its demo enterprise from).`,
    );
  }
  const source = env.HALLMARK_JWT_SECRET ? 'HALLMARK_JWT_SECRET' : path.join(dir, 'secrets.json');
  return { secret, enterpriseId, source };
}

export async function devToken(
  ent: string | undefined,
  claims: { sub: string; role: 'owner' | 'admin' | 'member'; email?: string },
): Promise<string> {
  const signer = devSigner(ent);
  return signDevToken(signer.secret, { ent: signer.enterpriseId, ...claims });
}
