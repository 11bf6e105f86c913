// A notify webhooks process for the crash test: the real fan-out consumer and delivery
// worker, with an agent that trusts the test receiver's CA (a test seam passed by
// constructor, not a production setting). The test SIGKILLs it mid-fan-out.
import { connectBus, createGuardedAgent, createLogger, openDatabase } from '@hallmark/kit';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { createWebhooks } from '../src/webhooks/index.js';
import { TEST_ENCRYPTION_KEY } from './webhooks-helpers.js';

const env = process.env;
const log = createLogger('notify-fixture', env.LOG_LEVEL ?? 'silent');
const pool = await openDatabase({
  serverUrl: env.DATABASE_URL!,
  database: env.FIXTURE_DATABASE!,
  migrationsDirs: [path.join(import.meta.dirname, '..', 'migrations')],
});
const bus = await connectBus(env.NATS_URL!, 'notify-fixture');
const ca = readFileSync(env.FIXTURE_CA_FILE!, 'utf8');
const webhooks = createWebhooks(
  { pool, bus, log },
  {
    encryptionKeys: TEST_ENCRYPTION_KEY,
    outboundAllowHosts: '127.0.0.1',
    retryScheduleS: [1, 1, 1, 1, 1],
    agent: (guard) => createGuardedAgent(guard, { tls: { ca } }),
    timeoutMs: 2000,
    leaseMs: 2500,
    pollIntervalMs: 100,
    ackWaitMs: 2000,
  },
);
for (const w of webhooks.workers) await w.start();
process.stdout.write('READY\n');
