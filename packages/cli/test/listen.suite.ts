// `hallmark listen --forward-to` against the whole running stack of e2e.test.ts: a listen
// session in notify whose events (a voucher redemption, a bulk job submitted through the CLI)
// reach a local plain-HTTP receiver with their real headers and signatures.
import { beforeAll, describe, expect, it } from '@jest/globals';
import type { TestStack } from '@hallmark/e2e';
import { verifyWebhook } from '@hallmark/client';
import { randomBytes } from 'node:crypto';
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { bin, csvWithZip, hallmark } from './run.js';

export function listenSuite(getStack: () => TestStack) {
  let stack: TestStack;
  let token: string;
  let dir: string;
  let env: Record<string, string>;
  beforeAll(async () => {
    stack = getStack();
    dir = mkdtempSync(path.join(tmpdir(), 'hallmark-cli-listen-'));
    token = await stack.token();
    env = { HALLMARK_CONFIG: path.join(dir, 'config.json'), HALLMARK_BASE_URL: stack.gatewayUrl };
  });

  describe('hallmark listen', () => {
    it('--forward-to a local plain-HTTP receiver: a voucher redemption and a bulk job each arrive with a signature that verifies; Ctrl-C ends it, exit 0', async () => {
      const made = await stack.call('POST', '/api/v1/api-keys', {
        auth: token,
        body: { name: 'laptop', type: 'test', permissions: ['admin.*'] },
      });
      expect(made.status).toBe(201);
      const key: string = made.body.key;
      const got: { headers: Record<string, string>; body: string }[] = [];
      const local = createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => {
          got.push({
            headers: Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)])),
            body: Buffer.concat(chunks).toString('utf8'),
          });
          res.writeHead(200).end('ok');
        });
      });
      await new Promise<void>((r) => local.listen(0, '127.0.0.1', r));
      const hook = `http://127.0.0.1:${(local.address() as AddressInfo).port}/hook`;
      const child = spawn(
        process.execPath,
        [
          bin,
          'listen',
          '--events',
          'transaction.completed,bulk.job.completed',
          '--forward-to',
          hook,
          '--json',
        ],
        { env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env, HALLMARK_API_KEY: key } },
      );
      let out = '';
      child.stdout.on('data', (c: Buffer) => (out += c.toString()));
      const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
      const lines = () =>
        out
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l));
      const until = async (what: string, ok: () => boolean) => {
        for (const end = Date.now() + 60_000; !ok(); await new Promise((r) => setTimeout(r, 200)))
          if (Date.now() > end) throw new Error(`timed out waiting for ${what}; stdout: ${out}`);
      };
      try {
        await until('the session line', () => lines().some((l) => l.session));
        const { session } = lines().find((l) => l.session);
        expect(session).toMatchObject({ id: expect.stringMatching(/^lsn_/), livemode: false });
        const code = `CLI${randomBytes(4).toString('hex').toUpperCase()}`;
        expect(
          (
            await stack.call('POST', '/api/v1/vouchers', {
              auth: key,
              body: { code, type: 'percentage', value: 10 },
            })
          ).status,
        ).toBe(201);
        const redeemed = await stack.call('POST', '/api/v1/vouchers/redeem', {
          auth: key,
          body: { code, amount: 1000, order_id: `order-${randomBytes(4).toString('hex')}` },
        });
        expect(redeemed.status).toBe(200);
        // A bulk job, submitted through the CLI with the same test key (same mode as the session).
        const { csv, zip } = await csvWithZip(dir, 'listen', 2);
        const job = await hallmark(['bulk', 'submit', csv, '--images', zip, '--wait'], {
          ...env,
          HALLMARK_API_KEY: key,
        });
        expect({ code: job.code, stderr: job.stderr.slice(-1000) }).toMatchObject({ code: 0 });
        const jobId = /Job (job_\w+) completed/.exec(job.stdout)?.[1];
        expect(jobId).toBeDefined();
        const forwarded = (type: string) =>
          got.find((g) => g.headers['x-webhook-event'] === type || g.body.includes(`"${type}"`));
        await until(
          'both forwarded events',
          () => !!forwarded('transaction.completed') && !!forwarded('bulk.job.completed'),
        );
        expect(lines().filter((l) => l.event)).toEqual(
          expect.arrayContaining([
            expect.objectContaining({
              event: expect.objectContaining({ type: 'transaction.completed' }),
              forwarded: expect.objectContaining({ status: 200 }),
            }),
            expect.objectContaining({
              event: expect.objectContaining({ type: 'bulk.job.completed' }),
              forwarded: expect.objectContaining({ status: 200 }),
            }),
          ]),
        );
        const redemption = forwarded('transaction.completed')!;
        expect(verifyWebhook(redemption.body, redemption.headers, session.secret)).toMatchObject({
          type: 'transaction.completed',
          data: { object: { id: redeemed.body.transaction_id } },
        });
        const bulk = forwarded('bulk.job.completed')!;
        expect(verifyWebhook(bulk.body, bulk.headers, session.secret)).toMatchObject({
          event: 'bulk.job.completed',
          jobId,
        });
        child.kill('SIGINT');
        expect(await exited).toBe(0);
      } finally {
        child.kill('SIGKILL');
        await new Promise((r) => local.close(r));
      }
    }, 120_000);

    it('a pk_live_ key listens live without --mode, as --help says; the key shows masked, never whole', async () => {
      const made = await stack.call('POST', '/api/v1/api-keys', {
        auth: token,
        body: { name: 'live laptop', type: 'production', permissions: ['admin.*'] },
      });
      const key: string = made.body.key;
      expect(key).toMatch(/^pk_live_/);
      const help = await hallmark(['listen', '--help']);
      expect(help.stdout.replace(/\s+/g, ' ')).toContain(
        "default: an API key's own mode, so a pk_live_ key listens live; a session token: test",
      );
      const child = spawn(process.execPath, [bin, '--api-key', key, 'listen'], {
        env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
      });
      let err = '';
      child.stderr.on('data', (c: Buffer) => (err += c.toString()));
      const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
      try {
        for (
          const end = Date.now() + 60_000;
          !err.includes('Ctrl-C');
          await new Promise((r) => setTimeout(r, 200))
        )
          if (Date.now() > end) throw new Error(`no session line; stderr: ${err}`);
        expect(err).toContain('Listening (live mode');
        expect(err).toContain(`key pk_live_…${key.slice(-4)}`);
        expect(err).not.toContain(key);
        child.kill('SIGINT');
        expect(await exited).toBe(0);
      } finally {
        child.kill('SIGKILL');
      }
    }, 90_000);
  });
}
