// One whole stack (anvil, Restate, a webhook receiver it trusts) for the tests of
// @hallmark/client (../../client/test/client.suite.ts) and of the built `hallmark` CLI
// (cli.suite.ts, listen.suite.ts, profile.suite.ts): a stack start is the costly part, so both packages share one. Bulk jobs
// mint in batches of 50 here so a job's progress moves in steps a bar can show.
import { afterAll, beforeAll, describe } from '@jest/globals';
import { startTestStack, type TestStack } from '@hallmark/e2e';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { clientSuite } from '../../client/test/client.suite.js';
import { startReceiver, type Receiver } from '../../client/test/receiver.js';
import { cliOutputSuite } from './cli-output.suite.js';
import { cliState, cliSuite } from './cli.suite.js';
import { listenSuite } from './listen.suite.js';
import { profileSuite } from './profile.suite.js';
import { buildCli } from './run.js';

let stack: TestStack;
let receiver: Receiver;

beforeAll(async () => {
  buildCli();
  receiver = await startReceiver(mkdtempSync(path.join(tmpdir(), 'hallmark-receiver-')));
  stack = await startTestStack({
    anvil: true,
    restate: true,
    env: {
      NODE_EXTRA_CA_CERTS: receiver.caFile,
      HALLMARK_OUTBOUND_ALLOW_HOSTS: '127.0.0.1',
      HALLMARK_BULK_BATCH_SIZE: '50',
    },
  });
}, 240_000);

afterAll(async () => {
  await stack?.close();
  await receiver?.close();
}, 60_000);

describe('@hallmark/client', () => clientSuite(() => ({ stack, receiver })));
describe('hallmark CLI', () => cliSuite(() => ({ stack, receiver })));
describe('hallmark CLI output', () => cliOutputSuite(cliState));
describe('hallmark CLI', () => listenSuite(() => stack));
describe('hallmark profile', () => profileSuite(() => ({ stack, receiver })));
