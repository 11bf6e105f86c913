// Typed env config of the notify service, validated once at start (all problems together).
import { commonEnv, grpcAddr, loadConfig, SERVICE_DEFAULT_PORT } from '@hallmark/kit';
import { z } from 'zod';

export const configSchema = z.object({
  ...commonEnv,
  HALLMARK_NOTIFY_ADDR: grpcAddr(SERVICE_DEFAULT_PORT.notify),
});

export type Config = z.infer<typeof configSchema>;

export const loadNotifyConfig = (env: NodeJS.ProcessEnv = process.env): Config =>
  loadConfig(configSchema, env);
