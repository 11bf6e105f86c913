// `pnpm start`: the whole system on embedded defaults, in the foreground. Ctrl-C stops
// every process it started. A second start while one runs says so and exits.
import {
  acquireStackLock,
  JWT_SECRET_FINGERPRINT_FILE,
  loadOrCreateSecrets,
  secretFingerprint,
  signDevToken,
  startOidcProvider,
  startStack,
  stopAll,
  type Stack,
} from '@hallmark/devstack';
import { startDevPlatform, type DemoPlatform } from '@hallmark/platform-sim';
import { buildConsole } from '../packages/console/build.js';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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
let platform: DemoPlatform | undefined;
let stopping = false;
const shutdown = async (code: number) => {
  if (stopping) return;
  stopping = true;
  console.log('\nStopping Hallmark…');
  await (stack?.stop() ?? Promise.resolve()).catch((err) => console.error(err));
  await platform?.close().catch(() => undefined);
  await stopAll().catch(() => undefined);
  release();
  process.exit(code);
};
process.on('SIGINT', () => void shutdown(0));
process.on('SIGTERM', () => void shutdown(0));

/**
 * The e-commerce platform: a set variable always wins (architecture.md › Running); with none
 * of the four set, the local simulator runs with a demo shop and a product whose image it
 * serves over HTTPS (its CA trusted and 127.0.0.1 allowed for image fetches, dev stack only).
 */
const PLATFORM_VARS = [
  'HALLMARK_PLATFORM_ADMIN_URL',
  'HALLMARK_PLATFORM_API_KEY',
  'HALLMARK_PLATFORM_API_SECRET',
  'HALLMARK_PLATFORM_APP_URL',
];
const platformFile = path.join(dataDir, 'platform-sim.json');
rmSync(platformFile, { force: true });
let platformEnv: Record<string, string> = {};
if (PLATFORM_VARS.every((v) => !process.env[v])) {
  try {
    ({ platform, env: platformEnv } = await startDevPlatform({
      dataDir,
      port: Number(process.env.HALLMARK_PLATFORM_SIM_PORT ?? 8090),
      imagesPort: Number(process.env.HALLMARK_PLATFORM_SIM_IMAGES_PORT ?? 8091),
    }));
  } catch (err) {
    console.error(`The platform simulator failed to start: ${(err as Error).message}`);
    await shutdown(1);
  }
}

// The console (served by the gateway at /console) and its sign-in: a provider that is set
// (HALLMARK_CONSOLE_OIDC_ISSUER, or HALLMARK_JWKS_URL for a provider of your own) always wins;
// else a local OpenID provider (packages/devstack/src/oidc.ts) signs people in to the demo
// enterprise, and the gateway trusts its keys beside the dev secret the CLI's tokens use.
await buildConsole();
let oidcEnv: Record<string, string> = {};
let oidcLine = 'HALLMARK_CONSOLE_OIDC_ISSUER as given';
if (!process.env.HALLMARK_CONSOLE_OIDC_ISSUER && !process.env.HALLMARK_JWKS_URL) {
  try {
    const oidc = await startOidcProvider({
      port: Number(process.env.HALLMARK_OIDC_PORT ?? 8092),
      enterpriseId: loadOrCreateSecrets(dataDir).demoEnterpriseId,
    });
    oidcEnv = { HALLMARK_CONSOLE_OIDC_ISSUER: oidc.issuer, HALLMARK_JWKS_URL: oidc.jwksUrl };
    oidcLine = `local sign-in ${oidc.issuer} (any user, the demo enterprise)`;
  } catch (err) {
    console.error(`The local sign-in provider failed to start: ${(err as Error).message}`);
    await shutdown(1);
  }
} else if (!process.env.HALLMARK_CONSOLE_OIDC_ISSUER)
  oidcLine = 'not configured (set HALLMARK_CONSOLE_OIDC_ISSUER)';

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
    env: { ...platformEnv, ...oidcEnv, ...givenProviders() },
    logLevel: process.env.LOG_LEVEL ?? 'info',
    logToFiles: true,
    // A process that dies (an unhandled error) is said on the console and started again.
    restartOnCrash: true,
  });
} catch (err) {
  console.error(`Hallmark failed to start: ${(err as Error).message}`);
  await shutdown(1);
}

const secrets = loadOrCreateSecrets(dataDir);
// A secret from the environment is not in secrets.json: its fingerprint tells `hallmark token`
// in another shell that the stack verifies with it, so it fails plainly instead of signing
// with the stored one (packages/cli/src/dev-session.ts).
const envSecretFile = path.join(dataDir, JWT_SECRET_FINGERPRINT_FILE);
if (process.env.HALLMARK_JWT_SECRET)
  writeFileSync(envSecretFile, secretFingerprint(process.env.HALLMARK_JWT_SECRET));
else rmSync(envSecretFile, { force: true });
const token = await signDevToken(secrets.jwtSecret, {
  ent: secrets.demoEnterpriseId,
  sub: 'dev-user',
  role: 'owner',
});
const apiKey = await devApiKey(stack!.gatewayUrl, token);
const issuer = await issuerLines(stack!.gatewayUrl, token, apiKey);

console.log(`
Hallmark is running.

  Gateway        ${stack!.gatewayUrl}
  Console        ${stack!.gatewayUrl}/console   (sign-in: ${oidcLine})
  API docs       ${stack!.gatewayUrl}/docs   (OpenAPI: ${stack!.gatewayUrl}/openapi.json)
  Restate UI     ${stack!.restate?.adminUrl}/ui
  Chain (anvil)  ${stack!.anvil?.rpcUrl}
  SMTP           ${stack!.smtp ? `${stack!.smtp.url} (local sink; GET ${stack!.smtp.messagesUrl} lists them)` : 'SMTP_URL as given'}${process.env.SMTP_FALLBACK_URL ? ', fallback SMTP_FALLBACK_URL' : ''}
  SMS            ${stack!.sms ? `local server on port ${stack!.sms.port} (GET /messages lists them)` : 'HALLMARK_SMS_URL as given'}
                 both at once: pnpm hallmark inbox
  PostgreSQL     ${stack!.postgres.embedded ? 'embedded' : 'system'} (${redact(stack!.postgres.url)})
  NATS           ${stack!.nats.url}
  Metrics        ${Object.entries(stack!.metricsUrls)
    .map(([name, url]) => `${name} ${url}`)
    .join('\n                 ')}
  Traces         ${process.env.OTEL_EXPORTER_OTLP_ENDPOINT ? `OTLP/HTTP to ${process.env.OTEL_EXPORTER_OTLP_ENDPOINT}` : 'off (set OTEL_EXPORTER_OTLP_ENDPOINT to export)'}

  Demo enterprise  ${secrets.demoEnterpriseId}
  Dev JWT          ${token}
                   (valid 12 h; a new one: pnpm hallmark token)
  Dev API key      ${apiKey}

  Try: curl -H "Authorization: Bearer ${apiKey.slice(0, 12)}…" ${stack!.gatewayUrl}/api/v1/api-keys
${issuer}${platformLines()}
  Press Ctrl-C to stop.
`);

function platformLines(): string {
  if (!platform) return '\n  Platform         as configured (HALLMARK_PLATFORM_ADMIN_URL …)';
  return `
  Platform         simulator ${platform.url}, demo shop ${platform.shop} (product ${platform.productId})
                   install: pnpm hallmark shop install     a paid order: pnpm hallmark shop order 3`;
}

/**
 * The demo enterprise's issuer profile, which the verify pages name the issuer by: what is
 * set, or (none yet: the pages say "Issuer not verified") the one command that sets it.
 */
async function issuerLines(gatewayUrl: string, jwt: string, key: string): Promise<string> {
  const res = await fetch(`${gatewayUrl}/api/v1/enterprise/profile`, {
    headers: { authorization: `Bearer ${jwt}` },
  }).catch(() => null);
  if (res?.ok) {
    const p = (await res.json()) as { displayName: string; domain: { host: string; status: string } };
    return `
  Issuer profile   ${p.displayName} (${p.domain.host}, domain ${p.domain.status}); change: pnpm hallmark profile set …
`;
  }
  return `
  Issuer profile   not set: verify pages say "Issuer not verified". Name your brand:
                   HALLMARK_API_KEY=${key} pnpm hallmark profile set \\
                     --name "Your brand" --website https://your.brand --logo https://your.brand/logo.png
`;
}

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
