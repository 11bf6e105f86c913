// Typed env config of the certificates service, validated once at start (all problems together).
import { commonEnv, grpcAddr, loadConfig, SERVICE_DEFAULT_PORT } from '@hallmark/kit';
import { z } from 'zod';

export const configSchema = z.object({
  ...commonEnv,
  HALLMARK_CERTIFICATES_ADDR: grpcAddr(SERVICE_DEFAULT_PORT.certificates),
});

export type Config = z.infer<typeof configSchema>;

export const loadCertificatesConfig = (env: NodeJS.ProcessEnv = process.env): Config =>
  loadConfig(configSchema, env);
