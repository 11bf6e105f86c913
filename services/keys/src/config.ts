// Typed env config of the keys service, validated once at start (all problems together).
import { commonEnv, grpcAddr, loadConfig, SERVICE_DEFAULT_PORT } from '@hallmark/kit';
import { z } from 'zod';

export const configSchema = z.object({
  ...commonEnv,
  HALLMARK_KEYS_ADDR: grpcAddr(SERVICE_DEFAULT_PORT.keys),
  /** The certificates service: its media store archives issuer logos. */
  HALLMARK_CERTIFICATES_ADDR: grpcAddr(SERVICE_DEFAULT_PORT.certificates),
  /** Hosts, IPs and CIDRs the outbound guard lets the domain-proof fetch reach (default none). */
  HALLMARK_OUTBOUND_ALLOW_HOSTS: z.string().default(''),
  /** Time budget of one domain-proof fetch (connect to last byte). */
  HALLMARK_ISSUER_PROOF_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(5000),
});

export type Config = z.infer<typeof configSchema>;

export const loadKeysConfig = (env: NodeJS.ProcessEnv = process.env): Config => loadConfig(configSchema, env);
