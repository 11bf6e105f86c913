// Boots built production trees (scripts/prod-tree.ts --boot) the way the image runs them:
// `node --experimental-async-context-frame services/<svc>/dist/main.js` in <out>, with a
// PostgreSQL (DATABASE_URL, the system one, or an embedded one) under a database prefix of
// its own and a NATS server of its own (never a dev stack's stream or consumers). Ready means
// gRPC health SERVING for a backend and GET /readyz 200 for the gateway (all six backends
// answering it). Then every process gets SIGTERM and must exit cleanly; the databases go.
import { createHealthProbe, SERVICE_ADDR_ENV, type ServiceName } from '@hallmark/kit';
import {
  ensureNats,
  ensurePostgres,
  freePort,
  spawnProcess,
  stopAllOnExit,
  type ProcessHandle,
} from '@hallmark/devstack';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';

const REPO = path.resolve(import.meta.dirname, '..');

export async function bootAll(outDir: string, services: readonly string[]): Promise<void> {
  stopAllOnExit();
  const dataDir = path.join(REPO, '.hallmark-test', 'prod-tree');
  mkdirSync(dataDir, { recursive: true });
  const postgres = await ensurePostgres({ dataDir, url: process.env.DATABASE_URL });
  const nats = await ensureNats({ dataDir, forceSpawn: true, logFile: path.join(dataDir, 'nats.log') });
  const prefix = `prodtree_${randomBytes(4).toString('hex')}`;
  const backends = services.filter((s): s is ServiceName => s !== 'gateway');
  const env: Record<string, string> = {
    NODE_ENV: 'production',
    DATABASE_URL: postgres.url,
    NATS_URL: nats.url,
    HALLMARK_DATABASE_PREFIX: prefix,
    HALLMARK_JWT_SECRET: randomBytes(32).toString('hex'),
    HALLMARK_ENCRYPTION_KEYS: randomBytes(32).toString('hex'),
    HALLMARK_PORT: String(await freePort()),
    LOG_LEVEL: 'warn',
    HALLMARK_BULK_RESTATE_PORT: String(await freePort()),
    HALLMARK_PLATFORM_RESTATE_PORT: String(await freePort()),
    HALLMARK_CERTIFICATES_RESTATE_PORT: String(await freePort()),
    HALLMARK_BULK_RESTATE_REGISTER: 'false',
    HALLMARK_PLATFORM_RESTATE_REGISTER: 'false',
    HALLMARK_CERTIFICATES_RESTATE_REGISTER: 'false',
  };
  for (const name of Object.keys(SERVICE_ADDR_ENV) as ServiceName[])
    env[SERVICE_ADDR_ENV[name]] = `127.0.0.1:${await freePort()}`;

  const started: ProcessHandle[] = [];
  const t0 = Date.now();
  const boot = async (svc: string) => {
    const readyCheck =
      svc === 'gateway'
        ? async () => (await fetch(`http://127.0.0.1:${env.HALLMARK_PORT}/readyz`).catch(() => null))?.ok
        : async () => {
            const probe = createHealthProbe(env[SERVICE_ADDR_ENV[svc as ServiceName]]!);
            try {
              return (await probe.check(500)) === 'SERVING';
            } finally {
              probe.close();
            }
          };
    const handle = await spawnProcess({
      name: `prod:${svc}`,
      cmd: process.execPath,
      // The image's entrypoint and the chart's args, exactly (deploy/Dockerfile, WORKDIR /app).
      args: ['--experimental-async-context-frame', `services/${svc}/dist/main.js`],
      cwd: outDir,
      // Only what a pod gets: no inherited NODE_OPTIONS (tsx's loader) from this script.
      env: { ...env, NODE_OPTIONS: '' },
      readyCheck,
      readyTimeoutMs: 90_000,
      logFile: path.join(dataDir, `${svc}.log`),
    });
    started.push(handle);
    console.log(`✓ ${svc} ready from its production tree (${Date.now() - t0} ms)`);
  };
  let failed: unknown;
  try {
    // The chart's way: the migrations Job runs each tree's dist/migrate.js, then the services
    // start with HALLMARK_MIGRATE_AT_START=false (and refuse to on a pending migration).
    await Promise.all(backends.map((svc) => runMigrate(outDir, env, svc)));
    env.HALLMARK_MIGRATE_AT_START = 'false';
    await Promise.all(backends.map(boot));
    if (services.includes('gateway')) await boot('gateway');
    for (const svc of backends) await checkMigrations(postgres.url, prefix, svc);
    if (backends.includes('notify')) await checkReencrypt(outDir, env);
  } catch (err) {
    failed = err;
  }
  const exits = await Promise.all(
    started.map(async (h) => {
      await h.stop();
      return { name: h.name, ...(await h.exited) };
    }),
  );
  await nats.stop();
  const admin = new pg.Client({ connectionString: postgres.url });
  await admin.connect();
  const { rows } = await admin.query<{ datname: string }>(
    'SELECT datname FROM pg_database WHERE datname LIKE $1',
    [`${prefix}\\_%`],
  );
  for (const { datname } of rows) await admin.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
  await admin.end();
  await postgres.stop();
  if (failed) throw new Error(`a production tree did not boot (logs in ${dataDir}): ${String(failed)}`);
  const unclean = exits.filter((e) => e.code !== 0);
  if (unclean.length)
    throw new Error(
      `unclean exit on SIGTERM: ${unclean.map((e) => `${e.name} ${e.code ?? e.signal}`).join(', ')}`,
    );
  console.log(`✓ ${started.length} services booted with plain node and stopped cleanly`);
}

/**
 * Every migration of the kit and of the service is applied: proves the bundle found both
 * directories in the tree (a missing directory would otherwise pass as "no tables yet").
 */
async function checkMigrations(serverUrl: string, prefix: string, svc: ServiceName): Promise<void> {
  const files = (dir: string) =>
    existsSync(dir) ? readdirSync(dir).filter((f) => /^\d{4}_.+\.sql$/.test(f)) : [];
  const expected = [
    ...files(path.join(REPO, 'packages', 'kit', 'migrations')),
    ...files(path.join(REPO, 'services', svc, 'migrations')),
  ];
  const url = new URL(serverUrl);
  url.pathname = `/${prefix}_${svc}`;
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  try {
    const { rows } = await client.query<{ name: string }>('SELECT name FROM schema_migrations');
    const applied = new Set(rows.map((r) => r.name));
    const missing = expected.filter((name) => !applied.has(name));
    if (missing.length)
      throw new Error(`${svc}: migrations not applied from its tree: ${missing.join(', ')}`);
  } finally {
    await client.end();
  }
  console.log(`✓ ${svc}: all ${expected.length} migrations (kit + own) applied from its tree`);
}

/** The migrations Job's step, exactly as the chart runs it (deploy/helm/…/migrations-job.yaml). */
async function runMigrate(outDir: string, env: Record<string, string>, svc: ServiceName): Promise<void> {
  await promisify(execFile)(
    process.execPath,
    ['--experimental-async-context-frame', `services/${svc}/dist/migrate.js`],
    { cwd: outDir, env: { ...env, NODE_OPTIONS: '' } },
  );
  console.log(`✓ ${svc}: services/${svc}/dist/migrate.js created and migrated its database`);
}

/** The image's re-encryption command runs from a tree: a check over the fresh databases. */
async function checkReencrypt(outDir: string, env: Record<string, string>): Promise<void> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--experimental-async-context-frame', 'services/notify/dist/reencrypt.js', '--check'],
    { cwd: outDir, env: { ...env, NODE_OPTIONS: '' } },
  );
  if (!stdout.includes('every encrypted value is under the newest key'))
    throw new Error(`services/notify/dist/reencrypt.js --check said: ${stdout}`);
  console.log('✓ services/notify/dist/reencrypt.js --check ran from its tree');
}
