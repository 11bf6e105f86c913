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

/**
 * Operations settings every service process reads through the kit (readiness checks, the
 * JetStream stream and consumers, the dead-letter stream); each has the dev default.
 */
export const opsEnv = {
  /**
   * Create the database and apply migrations at start (the dev default). false: a migration
   * job did (Helm's pre-install/pre-upgrade hook), and a pending migration stops the start.
   */
  HALLMARK_MIGRATE_AT_START: z
    .enum(['true', 'false', '1', '0'])
    .default('true')
    .transform((v) => v === 'true' || v === '1'),
  /**
   * Caps every service's PostgreSQL pool (each service sizes its own, 10–20): for a server with
   * few connections to share (the bench smoke runs beside the test suite's stacks). At least 8:
   * certificates holds some for good (its relayer locks, its listeners), and at 4 its MintBatch
   * waited behind them until its deadline.
   */
  HALLMARK_DB_POOL_MAX: z.coerce.number().int().min(8).max(200).optional(),
  /** How often a service re-checks its database and NATS for its readiness. */
  HALLMARK_READINESS_INTERVAL_MS: z.coerce.number().int().min(100).max(600_000).default(5000),
  /** Replicas of the HALLMARK and HALLMARK_DLQ streams (1, 3 or 5 on a NATS cluster). */
  HALLMARK_NATS_STREAM_REPLICAS: z.coerce.number().int().min(1).max(5).default(1),
  /** How long the HALLMARK stream keeps events. */
  HALLMARK_NATS_STREAM_MAX_AGE_HOURS: z.coerce.number().int().min(1).default(168),
  /** How long the dead-letter stream keeps parked messages. */
  HALLMARK_NATS_DLQ_MAX_AGE_HOURS: z.coerce.number().int().min(1).default(720),
  /**
   * Bytes the HALLMARK stream may hold; when full it refuses new events (they wait in each
   * service's outbox and the backlog alerts) rather than dropping old ones unread.
   */
  HALLMARK_NATS_STREAM_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1024 * 1024)
    .default(8 * 1024 ** 3),
  /** Bytes the dead-letter stream may hold (the oldest parked messages go first). */
  HALLMARK_NATS_DLQ_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1024 * 1024)
    .default(1024 ** 3),
  /** How long a published outbox row is kept (kit retention.ts; processed ids follow the streams). */
  HALLMARK_OUTBOX_RETENTION_HOURS: z.coerce.number().int().min(1).default(168),
  /** Deliveries of one event to a consumer before it is parked in the dead-letter stream. */
  HALLMARK_NATS_MAX_DELIVER: z.coerce.number().int().min(2).max(10_000).default(20),
  /** After this a client's gRPC connection is closed so it reconnects (to a new replica, maybe). */
  HALLMARK_GRPC_MAX_CONNECTION_AGE_MS: z.coerce.number().int().min(1000).default(300_000),
};

/**
 * `host:port` a service listens on and its clients dial (one name for both sides). A client
 * may also be given a gRPC name that resolves to every replica: `dns:///host:port` (a
 * Kubernetes headless Service: each address one replica) or `ipv4:a:port,b:port`; its calls
 * are then spread over them round robin (grpc/client.ts).
 */
export const grpcAddr = (fallbackPort: number) =>
  z
    .string()
    .regex(
      /^(?:[\w.-]+:\d{1,5}|dns:\/\/\/[\w.-]+:\d{1,5}|ipv4:[\d.]+:\d{1,5}(?:,[\d.]+:\d{1,5})*)$/,
      'expected host:port, dns:///host:port or ipv4:a.b.c.d:port[,…]',
    )
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
