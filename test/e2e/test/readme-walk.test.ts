// The README's Quick start, From code and From the terminal, walked as written: every command
// and code block is read from README.md itself and run against a whole stack, so the README
// cannot drift from what the system does (issue 30: its own bulk fix example failed, its
// token command printed tokens the stack refused, its client import did not resolve).
//
// What the walk does not run, and why (each must still match a README line, so this list
// cannot go stale):
//   - the install and start commands (`npm install -g pnpm… && pnpm install && pnpm start`,
//     `pnpm install && pnpm test`): this harness stands in for `pnpm start` — a whole stack
//     (startTestStack) with the demo platform wired in as pnpm start wires it
//     (startDevPlatform), and the test run is what this file is part of;
//   - From code's install of the packed client (`pnpm pack`, `npm install …tgz`): installPacked()
//     does the same, with pnpm offline from the workspace's store;
//   - untagged blocks that are not `$ ` transcripts: captures of the progress bars.
// What the walk supplies, and why: the README's host `127.0.0.1:8080`/`localhost:8080` is the
// stack's gateway; `ent_…` its demo enterprise; `job_…` the job the walk's own `bulk submit`
// made; the webhook line of From code is a handler fragment, given a delivery signed with
// HALLMARK_WEBHOOK_SECRET as `rawBody` and `req`; products.csv and images.zip are 20 watches,
// row 17 with a bad e-mail (the one `bulk fix … 17` corrects). Commands run in bash in a
// folder inside the checkout, as a person's shell would, with a HOME of their own.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startDevPlatform, type DemoPlatform } from '@hallmark/platform-sim';
import { spawn } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { installPacked } from '../../../packages/client/test/packed.js';
import { png, zipOf } from '../src/bulk.js';
import { startTestStack, type TestStack } from '../src/index.js';

const root = path.resolve(import.meta.dirname, '../../..');
const README = readFileSync(path.join(root, 'README.md'), 'utf8');

/** The text of a `## title` section, up to the next `## `. */
function section(title: string): string {
  const start = README.indexOf(`\n## ${title}\n`);
  if (start < 0) throw new Error(`README.md has no section "${title}"`);
  const next = README.indexOf('\n## ', start + 4);
  return README.slice(start, next < 0 ? undefined : next);
}

const blocks = (text: string) =>
  [...text.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)].map((m) => ({ lang: m[1]!, body: m[2]! }));

/** A sh block's commands, without their trailing `# comments`. */
const commandsOf = (body: string) =>
  body
    .split('\n')
    .map((l) => l.replace(/\s+#\s.*$/, '').trim())
    .filter(Boolean);

const SKIPPED: [RegExp, string][] = [
  [/^npm install -g pnpm@[\d.]+ && pnpm install && pnpm start$/, 'the harness is the stack'],
  [/^pnpm install && pnpm test$/, 'this walk is part of that run'],
  [/^cd packages\/client && pnpm pack\b/, 'installPacked() packs it'],
  [/^npm install \/tmp\/hallmark-client-[\d.]+\.tgz$/, 'installPacked() installs it'],
];
const skipsUsed = new Set<RegExp>();
const skipped = (cmd: string) => {
  const hit = SKIPPED.find(([re]) => re.test(cmd))?.[0];
  if (hit) skipsUsed.add(hit);
  return Boolean(hit);
};

let stack: TestStack;
let platform: DemoPlatform;
let dataDir: string;
/** Where the commands run (inside the checkout, so `pnpm hallmark` finds the workspace). */
let shellDir: string;
let home: string;
let app: string;
let host: string;
let demoEnt: string;
let jobId = '';
const WEBHOOK_SECRET = 'whsec_' + Buffer.alloc(32, 7).toString('base64');

async function writeProducts(dir: string) {
  const lines = ['name,description,category,recipientEmail,recipientName,imageFile'];
  const images: { name: string; data: Buffer }[] = [];
  for (let r = 1; r <= 20; r++) {
    const email = r === 17 ? 'not-an-email' : `owner${r}@example.com`;
    lines.push(`Watch ${r},Hand-made,Watches,${email},Owner ${r},${r}.png`);
    images.push({ name: `${r}.png`, data: png(`readme-${r}`) });
  }
  writeFileSync(path.join(dir, 'products.csv'), lines.join('\n'));
  writeFileSync(path.join(dir, 'images.zip'), await zipOf(images));
}

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'hallmark-readme-'));
  const dev = await startDevPlatform({ dataDir, port: 0, imagesPort: 0 });
  platform = dev.platform;
  stack = await startTestStack({ dataDir, anvil: true, restate: true, smtp: true, sms: true, env: dev.env });
  host = new URL(stack.gatewayUrl).host;
  demoEnt = stack.secrets.demoEnterpriseId;
  mkdirSync(path.join(root, '.hallmark-test'), { recursive: true });
  shellDir = mkdtempSync(path.join(root, '.hallmark-test', 'readme-walk-'));
  home = mkdtempSync(path.join(tmpdir(), 'hallmark-readme-home-'));
  ({ app } = installPacked());
  await Promise.all([writeProducts(shellDir), writeProducts(app)]);
}, 300_000);

afterAll(async () => {
  await stack?.close();
  await platform?.close();
  for (const dir of [shellDir, home]) if (dir) rmSync(dir, { recursive: true, force: true });
}, 60_000);

const subst = (s: string) =>
  s
    .replaceAll('127.0.0.1:8080', host)
    .replaceAll('localhost:8080', host)
    .replaceAll('ent_…', demoEnt)
    .replaceAll('job_…', jobId);

interface Ran {
  code: number | null;
  out: string;
  err: string;
}

/** One README line in bash, in shellDir; `until` ends a command that runs until Ctrl-C. */
function sh(line: string, opts: { until?: RegExp; env?: Record<string, string> } = {}): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', line], {
      cwd: shellDir,
      detached: true,
      env: {
        PATH: process.env.PATH,
        HOME: home,
        XDG_CONFIG_HOME: path.join(home, '.config'),
        // As pnpm start runs it: the stack's data folder (token, shop, inbox) and gateway port.
        HALLMARK_DATA_DIR: dataDir,
        HALLMARK_PORT: new URL(stack.gatewayUrl).port,
        ...opts.env,
      },
    });
    let out = '';
    let err = '';
    let stopping = false;
    const stop = () => {
      if (stopping) return;
      stopping = true;
      process.kill(-child.pid!, 'SIGINT'); // Ctrl-C: the whole foreground group
    };
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString();
      if (opts.until?.test(out + err)) stop();
    });
    child.stderr.on('data', (c: Buffer) => {
      err += c.toString();
      if (opts.until?.test(out + err)) stop();
    });
    const timer = setTimeout(() => {
      process.kill(-child.pid!, 'SIGKILL');
      reject(new Error(`timed out: ${line}\n${out}\n${err}`));
    }, 180_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, out, err });
    });
  });
}

/** Runs a line and expects exit 0 (with what it printed in the failure message). */
async function ok(line: string, opts?: Parameters<typeof sh>[1]): Promise<Ran> {
  const r = await sh(subst(line), opts);
  expect({ line, code: r.code, err: r.err.slice(-2000) }).toMatchObject({ code: 0 });
  return r;
}

describe('README › Quick start, as written', () => {
  it('answers the 404 envelope, signs tokens the stack accepts, sets the issuer profile, installs the demo app and sells it a paid order', async () => {
    const lines = blocks(section('Quick start'))
      .filter((b) => b.lang === 'sh')
      .flatMap((b) => commandsOf(b.body))
      .filter((c) => !skipped(c));
    expect(lines.length).toBeGreaterThanOrEqual(4);
    const ran = new Set<string>();
    for (const line of lines) {
      const r = await ok(line);
      const verb = /^(curl|pnpm hallmark (?:token|shop order|shop install|profile show))\b/.exec(line)?.[1];
      if (verb) ran.add(verb);
      if (verb === 'curl') {
        expect(JSON.parse(r.out).error).toMatchObject({
          code: 'resource_not_found',
          request_id: expect.stringMatching(/^req_/),
        });
      } else if (verb === 'pnpm hallmark token') {
        expect((await stack.call('GET', '/api/v1/vouchers', { auth: r.out.trim() })).status).toBe(200);
      } else if (verb === 'pnpm hallmark profile show') {
        expect(r.out).toContain('Maison Example');
      } else if (verb === 'pnpm hallmark shop install') {
        expect(r.out).toContain(`Installed on ${platform.shop}`);
      } else if (verb === 'pnpm hallmark shop order') {
        expect(r.out).toMatch(/Fulfilled \(\w+\) with tracking number/);
        const vouchers = r.out.slice(r.out.indexOf('Certificate vouchers of job'));
        expect({
          out: r.out,
          vouchers: vouchers.match(/^ {2}\S+ {2}https?:\/\/\S+$/gm)?.length,
        }).toMatchObject({
          vouchers: 3,
        });
      }
    }
    expect([...ran].sort()).toEqual([
      'curl',
      'pnpm hallmark profile show',
      'pnpm hallmark shop install',
      'pnpm hallmark shop order',
      'pnpm hallmark token',
    ]);
  }, 240_000);
});

describe('README › From code, as written', () => {
  it('runs its blocks as one plain Node ESM module against the packed client', async () => {
    const code = blocks(section('From code')).filter((b) => b.lang === 'js');
    expect(code).toHaveLength(2);
    for (const b of blocks(section('From code')).filter((x) => x.lang === 'sh'))
      for (const c of commandsOf(b.body)) expect({ c, skipped: skipped(c) }).toEqual({ c, skipped: true });
    const body = JSON.stringify({ type: 'transaction.completed', data: { object: { id: 'txn_1' } } });
    const t = Math.floor(Date.now() / 1000);
    const sig = createHmac('sha256', WEBHOOK_SECRET).update(`${t}.${body}`).digest('hex');
    const handler = `// The walk's delivery for the handler fragment (see the test's header).
const rawBody = Buffer.from(${JSON.stringify(body)});
const req = { headers: { 'x-service-signature': 't=${t},v1=${sig}' } };
`;
    writeFileSync(
      path.join(app, 'readme.mjs'),
      handler + code.map((b) => b.body).join('\n') + 'console.log(`event: ${event.type}`);\n',
    );
    const session = await stack.token({ ent: demoEnt });
    const r = await new Promise<Ran>((resolve) => {
      const child = spawn(process.execPath, ['readme.mjs'], {
        cwd: app,
        env: {
          PATH: process.env.PATH,
          HALLMARK_BASE_URL: stack.gatewayUrl,
          HALLMARK_TOKEN: session,
          HALLMARK_WEBHOOK_SECRET: WEBHOOK_SECRET,
        },
      });
      let out = '';
      let err = '';
      child.stdout.on('data', (c: Buffer) => (out += c.toString()));
      child.stderr.on('data', (c: Buffer) => (err += c.toString()));
      child.on('exit', (code) => resolve({ code, out, err }));
    });
    expect({ code: r.code, err: r.err }).toEqual({ code: 0, err: '' });
    expect(r.out).toContain('active: SPRING25');
    expect(r.out).toMatch(/^404 resource_error resource_not_found req_\w+$/m);
    expect(r.out).toMatch(/^20\/20 ✓19 ✗1$/m);
    expect(r.out).toContain('event: transaction.completed');
  }, 180_000);
});

describe('README › From the terminal, as written', () => {
  it('every command runs and does what its comment says; the failure transcript is what a person sees', async () => {
    const text = section('From the terminal');
    const lines = blocks(text)
      .filter((b) => b.lang === 'sh')
      .flatMap((b) => commandsOf(b.body));
    expect(lines.length).toBeGreaterThanOrEqual(10);
    for (const line of lines) {
      if (line.startsWith('pnpm hallmark listen')) {
        // Runs until Ctrl-C: stopped once its session is open, as a person would.
        const r = await sh(subst(line), { until: /Ctrl-C to stop/ });
        expect(r.err).toMatch(/Listening \(test mode, session lsn_\w+/);
        continue;
      }
      const r = await ok(line);
      if (line.startsWith('pnpm hallmark login')) {
        expect(statSync(path.join(home, '.config/hallmark/config.json')).mode & 0o777).toBe(0o600);
      } else if (line.startsWith('pnpm hallmark keys create')) {
        expect(JSON.parse(r.out).key).toMatch(/^pk_(live|test)_\w+$/);
      } else if (line.startsWith('pnpm hallmark bulk submit')) {
        jobId = /Job (job_\w+) completed/.exec(r.out)![1]!;
        expect(r.out).toContain('19 succeeded, 1 failed.');
        expect(r.out).toMatch(/row 17: recipientEmail/);
      } else if (line.startsWith('pnpm hallmark bulk status')) {
        const token = JSON.parse(readFileSync(path.join(home, '.config/hallmark/config.json'), 'utf8')).token;
        expect(JSON.parse(r.out)).toEqual(
          (await stack.call('GET', `/api/bulk-mint/${jobId}`, { auth: token })).body,
        );
      } else if (line.startsWith('pnpm hallmark bulk fix')) {
        expect(r.out + r.err).toMatch(/row 17/i);
      } else if (line.startsWith('eval ')) {
        expect((await ok(`${line} && complete -p hallmark`)).out).toContain('hallmark');
      }
    }
    expect(jobId).toMatch(/^job_/);

    // The failure transcript: `$ command` then exactly its output (any request id).
    const transcript = blocks(text).find((b) => b.lang === '' && b.body.startsWith('$ '));
    expect(transcript).toBeDefined();
    const [command, ...expected] = transcript!.body.trimEnd().split('\n');
    const r = await sh(`(${subst(command!.slice(2))}) 2>&1`);
    const got = r.out.trimEnd().split('\n');
    expect(got.map((l) => l.replace(/req_\w+/, 'req_…'))).toEqual(
      expected.map((l) => l.replace(/req_\w+/, 'req_…')),
    );
  }, 360_000);

  it('skips only the lines its header names, each of which is still in the README', () => {
    expect([...skipsUsed].map(String).sort()).toEqual(SKIPPED.map(([re]) => String(re)).sort());
  });
});
