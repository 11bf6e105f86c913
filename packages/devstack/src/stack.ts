// The whole system as local processes: infrastructure (PostgreSQL, NATS, and optionally
// Restate, anvil and an SMTP sink), then every service and the gateway, each its own
// process with its own port. `pnpm start` runs it in the foreground; e2e tests start it
// with their own data dir, database prefix and NATS so they never touch a dev stack.
import {
  createHealthProbe,
  SERVICE_ADDR_ENV,
  SERVICE_DEFAULT_PORT,
  SERVICE_NAMES,
  type ServiceName,
} from '@hallmark/kit';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { startAnvil, type AnvilHandle, type AnvilOptions } from './anvil.js';
import { ensureNats, type NatsHandle } from './nats.js';
import { ensurePostgres, type PostgresHandle } from './postgres.js';
import { spawnProcess, type ProcessHandle } from './process.js';
import { startRestate, type RestateHandle } from './restate.js';
import { clusteredEnv, type ClusteredEngines } from './cluster/index.js';
import { loadOrCreateSecrets, type StackSecrets } from './secrets.js';
import { startSmsServer, type SmsServerHandle } from './sms.js';
import { startSmtpSink, type SmtpSinkHandle } from './smtp.js';
import { writeInbox } from './inbox.js';
import { freePort } from './wait.js';

/** anvil's default account 0 private key: dev and tests only (the key is public). */
export const ANVIL_RELAYER_KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';

/**
 * Per-service Node flags. bulk's and certificates' old space is capped: a long job allocates per
 * batch at a steady rate and V8 would let the heap (and RSS) drift up by ~130 MB (certificates
 * ~250 MB) before its major collections catch up; capped, both run flat (the chart: NODE_OPTIONS).
 */
const NODE_ARGS: Partial<Record<ServiceName | 'gateway', string[]>> = {
  bulk: ['--max-old-space-size=192'],
  certificates: ['--max-old-space-size=256'],
};

export const REPO_ROOT = path.resolve(import.meta.dirname, '..', '..', '..');

/**
 * How a service process is started: from its TypeScript sources through tsx (`pnpm start`:
 * a change is live at the next start), or, when HALLMARK_STACK_COMPILED=1, from the in-place
 * bundle scripts/stack-bundles.ts builds (services/<svc>/dist-stack/main.js). `pnpm test`
 * builds them first and sets it: a bundle starts with a fraction of the CPU tsx spends
 * resolving and transforming hundreds of files, and the suite starts dozens of stacks of seven
 * processes. A missing bundle falls back to the sources.
 */
export function serviceEntryArgs(name: ServiceName | 'gateway'): string[] {
  const bundle = path.join(REPO_ROOT, 'services', name, 'dist-stack', 'main.js');
  if (process.env.HALLMARK_STACK_COMPILED === '1' && existsSync(bundle))
    return ['--enable-source-maps', bundle];
  return ['--import', 'tsx', path.join(REPO_ROOT, 'services', name, 'src', 'main.ts')];
}

export interface StackOptions {
  dataDir: string;
  /** Gateway port (0: a free one). */
  gatewayPort?: number;
  /** Fixed service ports 50051… (dev) or free ones (tests). */
  fixedPorts?: boolean;
  /**
   * A /metrics port per process (default: with fixedPorts, i.e. `pnpm start`). Tests ask for it
   * only where they scrape: every free port a stack takes is one more a parallel suite may pick.
   */
  metrics?: boolean;
  databaseUrl?: string;
  /** Clustered engines to connect to as production does (overrides databaseUrl, natsUrl, restate). */
  clustered?: ClusteredEngines;
  natsUrl?: string;
  forceSpawnNats?: boolean;
  /** Run an embedded PostgreSQL of the stack's own on a free port (`pnpm chaos --own-postgres`). */
  forceEmbeddedPostgres?: boolean;
  databasePrefix?: string;
  restate?: boolean;
  anvil?: boolean | Pick<AnvilOptions, 'blockTimeSec' | 'gasLimit'>; // options: `pnpm bench scale`
  smtp?: boolean;
  /** A local SMS server speaking Twilio's messages API (HALLMARK_SMS_URL). */
  sms?: boolean;
  /** Extra env for every process. */
  env?: Record<string, string>;
  logLevel?: string;
  /** Write each process's output to `<dataDir>/logs/<name>.log` instead of the console. */
  logToFiles?: boolean;
  /**
   * Start a service again when it exits on its own (`pnpm start`), as Kubernetes would: said on
   * the console, after a backoff (1 s doubling to 30 s, reset after a minute up), with the count
   * in HALLMARK_PROCESS_RESTARTS. Tests leave it off: they kill processes on purpose.
   */
  restartOnCrash?: boolean;
  /** Told of each unexpected exit and restart (default: the console). */
  onRestart?: (event: RestartEvent) => void;
}

export interface ProcessRow {
  name: string;
  pid: number;
  exited: { code: number | null; signal: NodeJS.Signals | null } | null;
}

export interface RestartEvent {
  name: string;
  pid: number;
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Restarts of this process so far, this one included. */
  restarts: number;
  /** The new process, once it is ready; an error when it could not start (tried again later). */
  restarted?: ProcessHandle;
  error?: Error;
}

export interface Stack {
  gatewayUrl: string;
  /** `GET /metrics` of every process (gateway and services), each on its own port. */
  metricsUrls: Record<ServiceName | 'gateway', string>;
  env: Record<string, string>;
  secrets: StackSecrets;
  postgres: PostgresHandle;
  nats: NatsHandle;
  restate?: RestateHandle;
  /** Starts Restate again (same ports, same data) after a test stopped or killed it. */
  restartRestate(): Promise<RestateHandle>;
  anvil?: AnvilHandle;
  smtp?: SmtpSinkHandle;
  sms?: SmsServerHandle;
  processes: Map<string, ProcessHandle>;
  /**
   * Every gateway and service process the stack started, with its pid and how it ended (null
   * while it runs): whether a run of requests made any process exit.
   */
  processTable(): ProcessRow[];
  /** Starts (or restarts) one service process with the stack's env. */
  startService(name: ServiceName | 'gateway'): Promise<ProcessHandle>;
  /**
   * Starts (or restarts) replica `index` (1…) of a backend: the same env and database, its own
   * gRPC port, no Restate registration and no metrics port. Nothing routes calls to it; it
   * runs the background workers beside the first process, so their locks and leases are
   * exercised (the chaos soak). Kept in `processes` as `<name>#<index>`. `env` overrides its
   * variables at its first start, e.g. an upgrade: `{ HALLMARK_RELEASE: 'next',
   * HALLMARK_BULK_RESTATE_REGISTER: 'true' }` (a new release's process registering its own
   * Restate deployment beside the running one).
   */
  startReplica(name: ServiceName, index: number, env?: Record<string, string>): Promise<ProcessHandle>;
  stop(): Promise<void>;
}

/** Metrics ports of the dev stack (`HALLMARK_<NAME>_METRICS_PORT`); tests take free ones. */
const DEFAULT_METRICS_PORTS: Record<ServiceName | 'gateway', number> = {
  gateway: 9460,
  keys: 9461,
  vouchers: 9462,
  certificates: 9463,
  bulk: 9464,
  notify: 9465,
  platform: 9466,
};

function logRestart(e: RestartEvent): void {
  const how = e.signal ? `signal ${e.signal}` : `code ${e.code}`;
  if (e.restarted) console.error(`[${e.name}] restarted (pid ${e.restarted.pid}), restart ${e.restarts}`);
  else if (e.error) console.error(`[${e.name}] could not restart: ${e.error.message}`);
  else
    console.error(
      `[${e.name}] exited unexpectedly (pid ${e.pid}, ${how}); restarting (restart ${e.restarts})`,
    );
}

export async function startStack(opts: StackOptions): Promise<Stack> {
  const logFile = (name: string) =>
    opts.logToFiles ? path.join(opts.dataDir, 'logs', `${name}.log`) : undefined;
  const postgres = await ensurePostgres({
    dataDir: opts.dataDir,
    url: opts.clustered?.postgres.url ?? opts.databaseUrl,
    ...(opts.forceEmbeddedPostgres ? { forceEmbedded: true, port: await freePort() } : {}),
    logFile: logFile('postgres'),
  });
  const nats = await ensureNats({
    dataDir: opts.dataDir,
    url: opts.clustered?.nats.url ?? (opts.forceSpawnNats ? undefined : opts.natsUrl),
    forceSpawn: !opts.clustered && opts.forceSpawnNats,
    logFile: logFile('nats'),
  });
  let restate =
    opts.restate && !opts.clustered
      ? await startRestate({
          dataDir: opts.dataDir,
          logFile: logFile('restate'),
          // Tests run stacks side by side: free ports; the dev stack keeps the documented ones.
          ...(opts.fixedPorts
            ? {}
            : { ingressPort: await freePort(), adminPort: await freePort(), nodePort: await freePort() }),
        })
      : undefined;
  const anvil = opts.anvil
    ? await startAnvil({
        port: opts.fixedPorts ? 8545 : await freePort(),
        dataDir: opts.dataDir,
        logFile: logFile('anvil'),
        ...(typeof opts.anvil === 'object' ? opts.anvil : {}),
      })
    : undefined;
  const smtp = opts.smtp
    ? await startSmtpSink({ port: opts.fixedPorts ? 2525 : 0, httpPort: opts.fixedPorts ? 2527 : 0 })
    : undefined;
  const sms = opts.sms ? await startSmsServer({ port: opts.fixedPorts ? 2526 : 0 }) : undefined;
  writeInbox(opts.dataDir, {
    email: smtp?.messagesUrl ?? null,
    sms: sms ? `http://127.0.0.1:${sms.port}/messages` : null,
  });
  const secrets = loadOrCreateSecrets(opts.dataDir);

  const gatewayPort = opts.gatewayPort ?? (await freePort());
  const env: Record<string, string> = {
    DATABASE_URL: postgres.url,
    NATS_URL: nats.url,
    HALLMARK_DATABASE_PREFIX: opts.databasePrefix ?? 'hallmark',
    HALLMARK_DATA_DIR: opts.dataDir,
    HALLMARK_PORT: String(gatewayPort),
    HALLMARK_PUBLIC_URL: process.env.HALLMARK_PUBLIC_URL ?? `http://127.0.0.1:${gatewayPort}`,
    HALLMARK_JWT_SECRET: secrets.jwtSecret,
    HALLMARK_ENCRYPTION_KEYS: secrets.encryptionKeys,
    LOG_LEVEL: opts.logLevel ?? 'info',
    ...(restate
      ? { HALLMARK_RESTATE_INGRESS_URL: restate.ingressUrl, HALLMARK_RESTATE_ADMIN_URL: restate.adminUrl }
      : {}),
    ...(opts.clustered ? clusteredEnv(opts.clustered) : {}),
    ...(anvil
      ? {
          HALLMARK_CHAIN_RPC_URL: anvil.rpcUrl,
          HALLMARK_CHAIN_ID: String(anvil.chainId),
          // anvil's account 0 (public, funded on every fresh anvil): the dev relayer; the
          // certificates service deploys its dev contract with it at start.
          HALLMARK_RELAYER_KEY: ANVIL_RELAYER_KEY,
        }
      : {}),
    ...(smtp ? { SMTP_URL: smtp.url } : {}),
    ...(sms ? { HALLMARK_SMS_URL: sms.url } : {}),
    // The bulk workflow's endpoint registers itself with Restate (when the stack runs one).
    HALLMARK_BULK_RESTATE_PORT: String(opts.fixedPorts ? 9180 : await freePort()),
    HALLMARK_BULK_RESTATE_REGISTER: restate || opts.clustered ? 'true' : 'false',
    // So does the platform's paid-order workflow.
    HALLMARK_PLATFORM_RESTATE_PORT: String(opts.fixedPorts ? 9181 : await freePort()),
    HALLMARK_PLATFORM_RESTATE_REGISTER: restate || opts.clustered ? 'true' : 'false',
    // And the certificates service's gift workflow.
    HALLMARK_CERTIFICATES_RESTATE_PORT: String(opts.fixedPorts ? 9182 : await freePort()),
    HALLMARK_CERTIFICATES_RESTATE_REGISTER: restate || opts.clustered ? 'true' : 'false',
    // `pnpm start` rebuilds code under one release name ('dev') at fixed ports: each start
    // replaces the registration. Tests register like production: a new URI per release.
    HALLMARK_RESTATE_FORCE_REGISTER: opts.fixedPorts ? 'true' : 'false',
    ...opts.env,
  };
  for (const name of SERVICE_NAMES) {
    const port = opts.fixedPorts ? SERVICE_DEFAULT_PORT[name] : await freePort();
    env[SERVICE_ADDR_ENV[name]] = `127.0.0.1:${port}`;
  }
  const metricsUrls = {} as Record<ServiceName | 'gateway', string>;
  for (const name of ['gateway', ...SERVICE_NAMES] as const) {
    const variable = `HALLMARK_${name.toUpperCase()}_METRICS_PORT`;
    // A set variable wins (as everywhere in the dev stack).
    const set = env[variable] ?? process.env[variable];
    if (set === undefined && !(opts.metrics ?? opts.fixedPorts)) continue;
    env[variable] = set ?? String(opts.fixedPorts ? DEFAULT_METRICS_PORTS[name] : await freePort());
    metricsUrls[name] = `http://127.0.0.1:${env[variable]}/metrics`;
  }

  const processes = new Map<string, ProcessHandle>();
  const replicaEnv = new Map<string, Record<string, string>>();
  /** A restarted process's own variables (its restart count), over the stack's. */
  const restartEnv = new Map<string, Record<string, string>>();
  const startService = async (
    name: ServiceName | 'gateway',
    replica?: number,
    overrides: Record<string, string> = {},
  ): Promise<ProcessHandle> => {
    const label = replica ? `${name}#${replica}` : name;
    let procEnv = env;
    if (replica && name !== 'gateway') {
      let own = replicaEnv.get(label);
      if (!own) {
        own = { ...env, [SERVICE_ADDR_ENV[name]]: `127.0.0.1:${await freePort()}` };
        delete own[`HALLMARK_${name.toUpperCase()}_METRICS_PORT`];
        const restate = `HALLMARK_${name.toUpperCase()}_RESTATE_PORT`;
        if (own[restate]) {
          own[restate] = String(await freePort());
          own[`HALLMARK_${name.toUpperCase()}_RESTATE_REGISTER`] = 'false';
        }
        Object.assign(own, overrides);
        replicaEnv.set(label, own);
      }
      procEnv = own;
    }
    const readyCheck =
      name === 'gateway'
        ? async () => (await fetch(`http://127.0.0.1:${gatewayPort}/healthz`).catch(() => null))?.ok
        : async () => {
            const probe = createHealthProbe(procEnv[SERVICE_ADDR_ENV[name]]!);
            try {
              return (await probe.check(500)) === 'SERVING';
            } finally {
              probe.close();
            }
          };
    const handle = await spawnProcess({
      name: label,
      cmd: process.execPath,
      // AsyncLocalStorage (the request id) on context frames rather than promise hooks: the
      // hooks ran on every promise in grpc-js, pg and Fastify (~15% of the gateway's CPU).
      args: ['--experimental-async-context-frame', ...(NODE_ARGS[name] ?? []), ...serviceEntryArgs(name)],
      cwd: REPO_ROOT,
      env: { ...procEnv, ...restartEnv.get(label) },
      readyCheck,
      readyTimeoutMs: 60_000,
      logFile: logFile(label),
    });
    processes.set(label, handle);
    if (opts.restartOnCrash) superviseCrash(label, name, replica, handle);
    return handle;
  };

  let stopping = false;
  const restarts = new Map<string, number>();
  const superviseCrash = (
    label: string,
    name: ServiceName | 'gateway',
    replica: number | undefined,
    handle: ProcessHandle,
  ) => {
    const startedAt = Date.now();
    const replaced = () => stopping || processes.get(label) !== handle;
    void handle.exited.then(async ({ code, signal }) => {
      if (replaced()) return; // stopped by us: the stack's stop, or a restart that replaced it
      const report = opts.onRestart ?? logRestart;
      // A process that stayed up a minute starts the backoff over.
      let delayMs = Date.now() - startedAt > 60_000 ? 1000 : 1000 * 2 ** (restarts.get(label) ?? 0);
      while (!replaced()) {
        const count = (restarts.get(label) ?? 0) + 1;
        restarts.set(label, count);
        report({ name: label, pid: handle.pid, code, signal, restarts: count });
        await new Promise((r) => setTimeout(r, Math.min(30_000, delayMs)));
        if (replaced()) return;
        restartEnv.set(label, { HALLMARK_PROCESS_RESTARTS: String(count) });
        try {
          const next = await startService(name, replica);
          report({ name: label, pid: handle.pid, code, signal, restarts: count, restarted: next });
          return;
        } catch (error) {
          report({ name: label, pid: handle.pid, code, signal, restarts: count, error: error as Error });
          delayMs *= 2;
        }
      }
    });
  };

  const stop = async () => {
    stopping = true;
    for (const name of ['gateway', ...SERVICE_NAMES]) await processes.get(name)?.stop();
    await Promise.all([...processes.values()].map((p) => p.stop()));
    await Promise.all([smtp?.stop(), sms?.stop()]);
    await anvil?.stop();
    await restate?.stop();
    await nats.stop();
    await postgres.stop();
  };

  try {
    // Start together (each owns its database); wait for all, so the stop finds every one up.
    const started = await Promise.allSettled(SERVICE_NAMES.map((name) => startService(name)));
    for (const r of started) if (r.status === 'rejected') throw r.reason;
    await startService('gateway');
  } catch (err) {
    await stop().catch(() => undefined);
    throw err;
  }
  return {
    gatewayUrl: `http://127.0.0.1:${gatewayPort}`,
    metricsUrls,
    env,
    secrets,
    postgres,
    nats,
    get restate() {
      return restate;
    },
    async restartRestate() {
      if (!restate) throw new Error('this stack runs no Restate');
      restate = await restate.restart();
      return restate;
    },
    anvil,
    smtp,
    sms,
    processes,
    processTable: () =>
      [...processes.values()].map((p) => ({ name: p.name, pid: p.pid, exited: p.exitStatus() })),
    startService: (name) => startService(name),
    startReplica: (name, index, env) => startService(name, index, env),
    stop,
  };
}
