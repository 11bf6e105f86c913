// Typed env config of the vouchers service, validated once at start (all problems together).
import { commonEnv, grpcAddr, loadConfig, SERVICE_DEFAULT_PORT } from '@hallmark/kit';
import { z } from 'zod';

export const configSchema = z.object({
  ...commonEnv,
  HALLMARK_VOUCHERS_ADDR: grpcAddr(SERVICE_DEFAULT_PORT.vouchers),
});

export type Config = z.infer<typeof configSchema>;

export const loadVouchersConfig = (env: NodeJS.ProcessEnv = process.env): Config => loadConfig(configSchema, env);
