// Typed env config of the notify service, validated once at start (all problems together).
import { commonEnv, grpcAddr, intList, loadConfig, SERVICE_DEFAULT_PORT } from '@hallmark/kit';
import { z } from 'zod';
import { messagingEnv } from './messaging/config.js';

export const configSchema = z.object({
  ...commonEnv,
  HALLMARK_NOTIFY_ADDR: grpcAddr(SERVICE_DEFAULT_PORT.notify),
  // The keys service: template grantees and the names the API shows for actors (CheckActors).
  HALLMARK_KEYS_ADDR: grpcAddr(SERVICE_DEFAULT_PORT.keys),
  // Webhooks: secrets at rest (AES-256-GCM, newest key first), the outbound guard's
  // exemptions (hosts, IPs, CIDRs; empty in production), seconds between attempts,
  // attempts in flight per process, and per endpoint or subscription (over every replica).
  HALLMARK_ENCRYPTION_KEYS: z.string().min(1, 'required: 32-byte keys, hex or base64, comma-separated'),
  HALLMARK_OUTBOUND_ALLOW_HOSTS: z.string().default(''),
  HALLMARK_WEBHOOK_RETRY_SCHEDULE: intList.default([60, 300, 900, 3600, 21600]),
  HALLMARK_WEBHOOK_CONCURRENCY: z.coerce.number().int().min(1).max(1024).default(64),
  HALLMARK_WEBHOOK_ENDPOINT_CONCURRENCY: z.coerce.number().int().min(1).max(1024).default(10),
  // Enterprise subscriptions: failed attempts in a row before `failing`, and before `disabled`.
  HALLMARK_WEBHOOK_FAILING_AFTER: z.coerce.number().int().min(1).default(3),
  HALLMARK_WEBHOOK_DISABLE_AFTER: z.coerce.number().int().min(1).default(20),
  // Listen sessions (`hallmark listen`) open at once per enterprise; the next one is 429.
  HALLMARK_LISTEN_MAX_SESSIONS: z.coerce.number().int().min(1).default(10),
  // Email and SMS providers (messaging/config.ts).
  ...messagingEnv,
});

export type Config = z.infer<typeof configSchema>;

export const loadNotifyConfig = (env: NodeJS.ProcessEnv = process.env): Config =>
  loadConfig(configSchema, env);
