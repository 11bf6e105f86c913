// `pnpm start`: the whole system on embedded defaults, in the foreground. Ctrl-C stops
// every process it started. A second start while one runs says so and exits.
import {
  acquireStackLock,
  loadOrCreateSecrets,
  signDevToken,
  startStack,
  stopAll,
  type Stack,
} from '@hallmark/devstack';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const dataDir = path.resolve(process.env.HALLMARK_DATA_DIR ?? '.hallmark');
let release: () => void;
try {
  release = await acquireStackLock(dataDir);
} catch (err) {
  console.error((err as Error).message);
  process.exit(1);
}

let stack: Stack | undefined;
let stopping = false;
const shutdown = async (code: number) => {
  if (stopping) return;
  stopping = true;
  console.log('\nStopping Hallmark…');
  await (stack?.stop() ?? Promise.resolve()).catch((err) => console.error(err));
  await stopAll().catch(() => undefined);
  release();
  process.exit(code);
};
process.on('SIGINT', () => void shutdown(0));
process.on('SIGTERM', () => void shutdown(0));

try {
  console.log(`Starting Hallmark (data in ${dataDir}, logs in ${path.join(dataDir, 'logs')})…`);
  stack = await startStack({
    dataDir,
    gatewayPort: Number(process.env.HALLMARK_PORT ?? 8080),
    fixedPorts: true,
    databaseUrl: process.env.DATABASE_URL,
    natsUrl: process.env.NATS_URL,
    restate: true,
    anvil: true,
    // A set provider variable always wins (architecture.md › Running): a stand-in starts only
    // for what is not set.
    smtp: !process.env.SMTP_URL,
    sms: !process.env.HALLMARK_SMS_URL,
    env: givenProviders(),
    logLevel: process.env.LOG_LEVEL ?? 'info',
    logToFiles: true,
  });
} catch (err) {
  console.error(`Hallmark failed to start: ${(err as Error).message}`);
  await shutdown(1);
}

const secrets = loadOrCreateSecrets(dataDir);
const token = await signDevToken(secrets.jwtSecret, {
  ent: secrets.demoEnterpriseId,
  sub: 'dev-user',
  role: 'owner',
});
const apiKey = await devApiKey(stack!.gatewayUrl, token);

console.log(`
Hallmark is running.

  Gateway        ${stack!.gatewayUrl}
  API docs       ${stack!.gatewayUrl}/docs   (OpenAPI: ${stack!.gatewayUrl}/openapi.json)
  Restate UI     ${stack!.restate?.adminUrl}/ui
  Chain (anvil)  ${stack!.anvil?.rpcUrl}
  SMTP           ${stack!.smtp ? `${stack!.smtp.url} (local sink)` : 'SMTP_URL as given'}${process.env.SMTP_FALLBACK_URL ? ', fallback SMTP_FALLBACK_URL' : ''}
  SMS            ${stack!.sms ? `local server on port ${stack!.sms.port} (GET /messages lists them)` : 'HALLMARK_SMS_URL as given'}
  PostgreSQL     ${stack!.postgres.embedded ? 'embedded' : 'system'} (${redact(stack!.postgres.url)})
  NATS           ${stack!.nats.url}

  Demo enterprise  ${secrets.demoEnterpriseId}
  Dev JWT          ${token}
                   (valid 12 h; a new one: pnpm hallmark token)
  Dev API key      ${apiKey}

  Try: curl -H "Authorization: Bearer ${apiKey.slice(0, 12)}…" ${stack!.gatewayUrl}/api/v1/api-keys
  Press Ctrl-C to stop.
`);

/** The notification providers the caller set, passed to the services as given. */
function givenProviders(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of ['SMTP_URL', 'SMTP_FALLBACK_URL', 'HALLMARK_SMS_URL', 'HALLMARK_SMS_FROM']) {
    const v = process.env[name];
    if (v) out[name] = v;
  }
  return out;
}

/** A production key for the demo enterprise, created once and kept in the data dir. */
async function devApiKey(gatewayUrl: string, jwt: string): Promise<string> {
  const file = path.join(dataDir, 'dev-api-key');
  if (existsSync(file)) {
    const key = readFileSync(file, 'utf8').trim();
    const check = await fetch(`${gatewayUrl}/api/v1/api-keys`, {
      headers: { authorization: `Bearer ${key}` },
    });
    if (check.ok) return key;
  }
  const res = await fetch(`${gatewayUrl}/api/v1/api-keys`, {
    method: 'POST',
    headers: { authorization: `Bearer ${jwt}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'dev key', type: 'production', permissions: ['admin.*'] }),
  });
  if (!res.ok) return `(could not create: HTTP ${res.status} ${await res.text()})`;
  const key = ((await res.json()) as { key: string }).key;
  writeFileSync(file, key, { mode: 0o600 });
  return key;
}

function redact(url: string): string {
  return url.replace(/\/\/([^:@]+):[^@]+@/, '//$1:***@');
}
