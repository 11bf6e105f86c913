// Typed configuration: one zod schema per service, validated once at start, every
// problem reported together (so an operator fixes them in one go, not one per restart).
import { z } from 'zod';

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

export function loadConfig<S extends z.ZodType>(schema: S, env: NodeJS.ProcessEnv = process.env): z.infer<S> {
  const result = schema.safeParse(env);
  if (result.success) return result.data;
  const problems = result.error.issues.map(
    (issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`,
  );
  throw new ConfigError(problems);
}

/** Pieces every service schema shares; names come from architecture.md › Configuration. */
export const commonEnv = {
  DATABASE_URL: z.string().url().default('postgres://postgres@127.0.0.1:5432/postgres'),
  NATS_URL: z.string().default('nats://127.0.0.1:4222'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  HALLMARK_PUBLIC_URL: z.string().url().default('http://127.0.0.1:8080'),
  /** Databases are `<prefix>_<service>`; tests use their own prefix to stay apart. */
  HALLMARK_DATABASE_PREFIX: z
    .string()
    .regex(/^[a-z][a-z0-9_]{0,30}$/, 'lowercase letters, digits and _')
    .default('hallmark'),
};

/** `host:port` a service listens on and its clients dial (one name for both sides). */
export const grpcAddr = (fallbackPort: number) =>
  z
    .string()
    .regex(/^[\w.-]+:\d{1,5}$/, 'expected host:port')
    .default(`127.0.0.1:${fallbackPort}`);

export const SERVICE_ADDR_ENV = {
  keys: 'HALLMARK_KEYS_ADDR',
  vouchers: 'HALLMARK_VOUCHERS_ADDR',
  certificates: 'HALLMARK_CERTIFICATES_ADDR',
  bulk: 'HALLMARK_BULK_ADDR',
  notify: 'HALLMARK_NOTIFY_ADDR',
  platform: 'HALLMARK_PLATFORM_ADDR',
} as const;

export const SERVICE_DEFAULT_PORT = {
  keys: 50051,
  vouchers: 50052,
  certificates: 50053,
  bulk: 50054,
  notify: 50055,
  platform: 50056,
} as const;

export type ServiceName = keyof typeof SERVICE_ADDR_ENV;
export const SERVICE_NAMES = Object.keys(SERVICE_ADDR_ENV) as ServiceName[];

/** Comma-separated list of integers, e.g. the webhook retry schedule. */
export const intList = z
  .string()
  .regex(/^\d+(,\d+)*$/, 'expected comma-separated integers')
  .transform((s) => s.split(',').map(Number));
