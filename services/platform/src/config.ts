// Typed env config of the platform service, validated once at start (all problems together).
import { commonEnv, grpcAddr, loadConfig, SERVICE_DEFAULT_PORT } from '@hallmark/kit';
import { z } from 'zod';

export const configSchema = z.object({
  ...commonEnv,
  HALLMARK_PLATFORM_ADDR: grpcAddr(SERVICE_DEFAULT_PORT.platform),
});

export type Config = z.infer<typeof configSchema>;

export const loadPlatformConfig = (env: NodeJS.ProcessEnv = process.env): Config =>
  loadConfig(configSchema, env);
