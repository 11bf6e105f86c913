// The built `hallmark` CLI as a subprocess against a whole running stack (anvil, Restate):
// login saved 0600 and overridden by the environment; a 500-row CSV + ZIP job submitted with
// --wait shows its bars and ends with the summary and exit 0; failures exit non-zero with the
// API's code and request id; --json prints exactly the API's objects; in a tmux pane the live
// bar redraws and Ctrl-C leaves the job running with the line to re-attach. Run by
// e2e.test.ts on its stack (bulk batches of 50, so progress moves in steps a bar can show).
import { beforeAll, describe, expect, it } from '@jest/globals';
import type { TestStack } from '@hallmark/e2e';
import { verifyWebhook } from '@hallmark/client';
import type { Receiver } from '../../client/test/receiver.js';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { bin, csvWithZip, hallmark, tmuxPane } from './run.js';

let stack: TestStack;
let token: string;
let dir: string;
let env: Record<string, string>;
let bigJobId = '';

/** Runs `hallmark … --json` expecting exit 0; answers what it printed, parsed. */
const jsonOf = (auth: Record<string, string>) => async (args: string[]) => {
  const r = await hallmark([...args, '--json'], auth);
  expect({ args, code: r.code, stderr: r.stderr }).toMatchObject({ code: 0 });
  return JSON.parse(r.stdout);
};

export function cliSuite(getEnv: () => { stack: TestStack; receiver: Receiver }) {
  let receiver: Receiver;
  beforeAll(async () => {
    ({ stack, receiver } = getEnv());
    dir = mkdtempSync(path.join(tmpdir(), 'hallmark-cli-'));
    token = await stack.token();
    env = { HALLMARK_CONFIG: path.join(dir, 'config.json'), HALLMARK_BASE_URL: stack.gatewayUrl };
  });

  describe('hallmark login', () => {
    it('saves the base URL and credential with mode 0600; HALLMARK_API_KEY overrides the saved one', async () => {
      const login = await hallmark(['login', '--base-url', stack.gatewayUrl, '--token', token], {
        HALLMARK_CONFIG: env.HALLMARK_CONFIG,
      });
      expect(login.code).toBe(0);
      expect(statSync(env.HALLMARK_CONFIG!).mode & 0o777).toBe(0o600);
      expect(JSON.parse(readFileSync(env.HALLMARK_CONFIG!, 'utf8'))).toEqual({
        baseUrl: stack.gatewayUrl,
        token,
      });

      const created = await hallmark(
        ['vouchers', 'create', '--code', 'CLI00001', '--type', 'percentage', '--value', '15'],
        {
          HALLMARK_CONFIG: env.HALLMARK_CONFIG,
        },
      );
      expect(created.code).toBe(0);
      expect(created.stdout).toMatch(/code\s+CLI00001/);

      const bad = await hallmark(['vouchers', 'list'], {
        ...env,
        HALLMARK_API_KEY: 'pk_test_' + 'x'.repeat(40),
      });
      expect(bad.code).toBe(3);
      expect(bad.stderr).toContain('code: invalid_api_key');
    });
  });

  describe('hallmark bulk submit --wait', () => {
    it('uploads a 500-row CSV with its ZIP, shows the upload and job bars, ends with the summary, exit 0', async () => {
      const { csv, zip } = await csvWithZip(dir, 'five-hundred', 500, 17);
      const started = Date.now();
      const run = await hallmark(['bulk', 'submit', csv, '--images', zip, '--wait'], env);
      const seconds = (Date.now() - started) / 1000;
      expect({ code: run.code, stderr: run.stderr.slice(-2000) }).toMatchObject({ code: 0 });
      expect(run.stderr).toMatch(/Uploading \|[█░]+\| 100%/);
      expect(run.stderr).toMatch(
        /job_\w+ (queued|processing|completed)\s+\|[█░]+\| \d+% \d+\/500 \| ✓ \d+ ✗ \d+ \| [\d.]+\/s \| ETA/,
      );
      const summary = /Job (job_\w+) completed in [\d.]+ s: 500 items, 499 succeeded, 1 failed\./.exec(
        run.stdout,
      );
      expect(summary).not.toBeNull();
      expect(run.stdout).toMatch(/row 17: .*e-?mail/i);
      console.log(`bulk submit --wait, 500 rows + ZIP: ${seconds.toFixed(1)} s end to end\n${run.stdout}`);

      // --json: exactly the API's answer for the job.
      bigJobId = summary![1]!;
      const status = await hallmark(['bulk', 'status', summary![1]!, '--json'], {
        ...env,
        HALLMARK_TOKEN: token,
      });
      expect(status.code).toBe(0);
      const api = await stack.call('GET', `/api/bulk-mint/${summary![1]}`, { auth: token });
      expect(JSON.parse(status.stdout)).toEqual(api.body);
    }, 240_000);
  });

  describe('results and certificates', () => {
    it('bulk download --csv writes the results file; certificates verify prints the five checks from the open verification API, all pass, and fails on an unknown id', async () => {
      const auth = { ...env, HALLMARK_TOKEN: token };
      const file = path.join(dir, 'results.csv');
      const dl = await hallmark(['bulk', 'download', bigJobId, '--csv', '-o', file], auth);
      expect(dl.code).toBe(0);
      expect(dl.stdout).toContain(`Wrote ${file}`);
      const lines = readFileSync(file, 'utf8').trim().split(/\r?\n/);
      expect(lines).toHaveLength(501);
      const header = lines[0]!.split(',');
      const good = lines
        .slice(1)
        .find((l) => l.includes(',success,'))!
        .split(',');
      const certificateId = good[header.indexOf('certificateId')]!;

      const verify = await hallmark(['certificates', 'verify', certificateId], auth);
      expect({ code: verify.code, out: verify.stdout }).toMatchObject({ code: 0 });
      for (const check of ['record_found', 'on_chain', 'holder', 'metadata', 'not_burned']) {
        expect(verify.stdout).toMatch(new RegExp(`✓ pass  ${check}`));
      }
      expect(verify.stdout).toContain(`${certificateId}: genuine, every check passed.`);
      const json = JSON.parse(
        (await hallmark(['certificates', 'verify', certificateId, '--json'], auth)).stdout,
      );
      expect(json).toMatchObject({ id: certificateId, verified: true });
      // The five checks, and the image check when the certificate records an image (it does here).
      expect(json.checks.map((c: { name: string }) => c.name)).toEqual(
        expect.arrayContaining(['record_found', 'on_chain', 'holder', 'metadata', 'not_burned']),
      );
      expect(json.checks.every((c: { passed: boolean }) => c.passed)).toBe(true);
      // --json prints the open verification API's object (GET /api/certificate/verify/:id).
      const api = await stack.call('GET', `/api/certificate/verify/${certificateId}`);
      expect(api.status).toBe(200);
      expect({ ...json, verifiedAt: undefined }).toEqual({ ...api.body, verifiedAt: undefined });
      expect(json.links.proofBundle).toMatch(new RegExp(`/api/certificate/${certificateId}/proof$`));
      const unknown = await hallmark(['certificates', 'verify', 'cert_doesnotexist'], auth);
      expect(unknown.code).not.toBe(0);
      expect(unknown.stderr).toContain('resource_not_found');

      const got = await hallmark(['certificates', 'get', certificateId, '--json'], auth);
      expect(JSON.parse(got.stdout)).toEqual(
        (await stack.call('GET', `/api/certificate/public/${certificateId}`)).body,
      );
    });
  });

  describe('hallmark bulk order', () => {
    it('a small order is minted at once with its vouchers; its Idempotency-Key reused is a 409 with the code', async () => {
      const auth = { ...env, HALLMARK_TOKEN: token };
      const order = {
        schemaVersion: '2025-09-01',
        metadata: [
          { name: 'Chronograph No. 7', description: 'Hand-assembled', imageUrl: `${receiver.url}/img/7.png` },
        ],
        externalContext: {
          source: 'shopify',
          shop: 'hallmark-demo.myshopify.com',
          orderId: `gid://shopify/Order/${Date.now()}`,
          lineItems: [{ lineItemGid: 'gid://shopify/LineItem/1', quantity: 2 }],
        },
      };
      const file = path.join(dir, 'order.json');
      writeFileSync(file, JSON.stringify(order));
      const key = `hallmark-demo.myshopify.com#${order.externalContext.orderId}#gid://shopify/LineItem/1#abc12345def`;
      const run = await hallmark(['bulk', 'order', file, '--idempotency-key', key, '--json'], auth);
      expect(`${run.code} ${run.stderr}`).toBe('0 ');
      const created = JSON.parse(run.stdout);
      expect(created).toMatchObject({
        success: true,
        status: 'completed',
        summary: { totalItems: 2, successCount: 2 },
      });
      expect(created.vouchers).toHaveLength(2);

      const again = await hallmark(['bulk', 'order', file, '--idempotency-key', key], auth);
      expect(again.code).toBe(4);
      expect(again.stderr).toMatch(/status: 409/);
      expect(again.stderr).toMatch(/request id: req_\w+|code: \w+/);
    });
  });

  describe('hallmark webhooks', () => {
    it('create, test (a real signed delivery the client verifies), deliveries and list', async () => {
      const auth = { ...env, HALLMARK_TOKEN: token };
      const created = await hallmark(
        [
          'webhooks',
          'create',
          '--url',
          `${receiver.url}/cli-hook`,
          '--events',
          'transaction.completed',
          '--json',
        ],
        auth,
      );
      expect(created.code).toBe(0);
      const endpoint = JSON.parse(created.stdout);
      expect(endpoint.secret).toMatch(/^whsec_/);
      const sent = await hallmark(['webhooks', 'test', endpoint.id], auth);
      expect(sent.code).toBe(0);
      const got = await receiver.waitFor((r) => r.path === '/cli-hook');
      expect(verifyWebhook<{ type: string }>(got.body, got.headers, endpoint.secret).type).toBeTruthy();

      const deliveries = await hallmark(['webhooks', 'deliveries', endpoint.id, '--json'], auth);
      const api = await stack.call('GET', `/api/v1/webhooks/${endpoint.id}/deliveries?page=1&limit=20`, {
        auth: token,
      });
      expect(JSON.parse(deliveries.stdout)).toEqual(api.body);
      const list = await hallmark(['webhooks', 'list'], auth);
      expect(list.stdout).toContain(endpoint.id);
    });
  });

  describe('keys and vouchers', () => {
    it('get, usage, audit, rotate and revoke a key; validate and redeem a voucher — each --json is the API answer', async () => {
      const auth = { ...env, HALLMARK_TOKEN: token };
      const json = jsonOf(auth);
      const key = await json(['keys', 'create', '--name', 'lifecycle', '--permissions', 'transactions.read']);
      expect(await json(['keys', 'get', key.id])).toEqual(
        (await stack.call('GET', `/api/v1/api-keys/${key.id}`, { auth: token })).body,
      );
      expect(await json(['keys', 'usage', key.id, '--period', '24h'])).toMatchObject({
        keyId: key.id,
        period: '24h',
      });
      expect((await json(['keys', 'audit', key.id])).logs[0]).toMatchObject({ action: 'key.created' });
      const rotated = await json(['keys', 'rotate', key.id]);
      expect(rotated.key).toMatch(/^pk_test_/);
      expect(rotated.key).not.toBe(key.key);
      await json(['keys', 'revoke', key.id]);
      const gone = await hallmark(['vouchers', 'list'], { ...env, HALLMARK_API_KEY: rotated.key });
      expect(gone.code).toBe(3);

      await json([
        'vouchers',
        'create',
        '--code',
        'REDEEM01',
        '--type',
        'percentage',
        '--value',
        '20',
        '--max-uses',
        '1',
      ]);
      const quote = await json(['vouchers', 'validate', 'REDEEM01', '--order', 'o-1', '--amount', '5000']);
      expect(quote).toMatchObject({ discount_applied: 1000, final_amount: 4000 });
      const redeemed = await hallmark(
        ['vouchers', 'redeem', 'REDEEM01', '--order', 'o-1', '--amount', '5000'],
        auth,
      );
      expect(redeemed.stdout).toContain('REDEEM01: 5000 − 1000 = 4000');
      const again = await hallmark(
        ['vouchers', 'redeem', 'REDEEM01', '--order', 'o-2', '--amount', '5000'],
        auth,
      );
      expect(again.code).not.toBe(0);
      expect(again.stderr).toMatch(/code: voucher_max_uses_reached/);
      expect(again.stderr).toMatch(/request id: req_\w+/);
    }, 90_000);
  });

  describe('hallmark vouchers rollback', () => {
    it('gives an order its use back (idempotently); --order-id is accepted wherever --order is', async () => {
      const auth = { ...env, HALLMARK_TOKEN: token };
      const json = jsonOf(auth);
      const v = await json([
        'vouchers',
        'create',
        '--code',
        'ROLLBK01',
        '--type',
        'fixed_amount',
        '--value',
        '500',
        '--max-uses',
        '1',
      ]);
      expect(
        await json(['vouchers', 'redeem', 'ROLLBK01', '--order-id', 'rb-1', '--amount', '2000']),
      ).toMatchObject({
        discount_applied: 500,
        order_id: 'rb-1',
      });
      const spent = await hallmark(['vouchers', 'redeem', 'ROLLBK01', '--order', 'rb-2'], auth);
      expect(spent.stderr).toContain('code: voucher_max_uses_reached');

      const back = await hallmark(['vouchers', 'rollback', v.id, '--order-id', 'rb-1'], auth);
      expect({ code: back.code, stderr: back.stderr }).toEqual({ code: 0, stderr: '' });
      expect(back.stdout).toContain('ROLLBK01: order rb-1 rolled back; uses left 1.');
      expect(await json(['vouchers', 'rollback', v.id, '--order', 'rb-1'])).toMatchObject({
        order_id: 'rb-1',
        already_rolled_back: true,
      });
      expect(await json(['vouchers', 'redeem', 'ROLLBK01', '--order', 'rb-2'])).toMatchObject({
        order_id: 'rb-2',
      });

      const neither = await hallmark(['vouchers', 'rollback', v.id], auth);
      expect(neither.code).toBe(2);
      expect(neither.stderr).toContain("required option '--order <orderId>' not specified");
    });
  });

  describe('hallmark bulk fix', () => {
    it('sends the corrected cells of a row; a row of an unknown job exits non-zero with the code and request id', async () => {
      const r = await hallmark(['bulk', 'fix', 'job_nope', '2', '--set', 'recipientEmail=ada@example.com'], {
        ...env,
        HALLMARK_TOKEN: token,
      });
      expect(r.code).not.toBe(0);
      expect(r.stderr).toMatch(/code: \w+/);
      expect(r.stderr).toMatch(/request id: \S+/);
      const bad = await hallmark(['bulk', 'fix', 'job_nope', '2', '--set', 'no-equals-sign'], {
        ...env,
        HALLMARK_TOKEN: token,
      });
      expect(bad.code).not.toBe(0);
      expect(bad.stderr).toContain('--set wants column=value');
    });
  });

  describe('failures', () => {
    it('exit non-zero with the API error code and the request id (both surfaces)', async () => {
      const v1 = await hallmark(['vouchers', 'get', 'vouch_000000000000000000000000'], {
        ...env,
        HALLMARK_TOKEN: token,
      });
      expect(v1.code).toBe(4);
      expect(v1.stderr).toMatch(/code: resource_not_found/);
      expect(v1.stderr).toMatch(/request id: req_\w+/);
      console.log(`a failing command:\n${v1.stderr}exit ${v1.code}`);

      const api = await hallmark(['bulk', 'cancel', 'job_000000000000000000000000'], {
        ...env,
        HALLMARK_TOKEN: token,
      });
      expect(api.code).toBe(4);
      expect(api.stderr).toMatch(/code: resource_not_found/);
      expect(api.stderr).toMatch(/request id: req_\w+/);

      const invalid = await hallmark(
        ['vouchers', 'create', '--code', 'X', '--type', 'percentage', '--value', '500', '--json'],
        {
          ...env,
          HALLMARK_TOKEN: token,
        },
      );
      expect(invalid.code).toBe(2);
      const body = JSON.parse(invalid.stdout);
      expect(body.error).toMatchObject({
        type: 'invalid_request_error',
        request_id: expect.stringMatching(/^req_/),
      });
      expect(invalid.stderr).toContain(`request id: ${body.error.request_id}`);

      const usage = await hallmark(['vouchers', 'create'], env);
      expect(usage.code).toBe(2);
      expect(usage.stderr).toMatch(/required option/);
    });
  });

  describe('--json', () => {
    it('prints exactly the API objects: created voucher, list pages, keys, cost preview', async () => {
      const auth = { ...env, HALLMARK_TOKEN: token };
      const created = await hallmark(
        [
          'vouchers',
          'create',
          '--code',
          'JSON0001',
          '--type',
          'fixed_amount',
          '--value',
          '500',
          '--max-uses',
          '3',
          '--json',
        ],
        auth,
      );
      expect(created.code).toBe(0);
      const voucher = JSON.parse(created.stdout);
      expect((await stack.call('GET', `/api/v1/vouchers/${voucher.id}`, { auth: token })).body).toEqual(
        voucher,
      );

      const list = await hallmark(['vouchers', 'list', '--limit', '5', '--json'], auth);
      expect(JSON.parse(list.stdout)).toEqual(
        (await stack.call('GET', '/api/v1/vouchers?page=1&limit=5', { auth: token })).body,
      );

      const key = JSON.parse(
        (
          await hallmark(
            ['keys', 'create', '--name', 'cli', '--permissions', 'transactions.read', '--json'],
            auth,
          )
        ).stdout,
      );
      expect(key.key).toMatch(/^pk_test_/);
      const keys = await hallmark(['keys', 'list', '--json'], auth);
      expect(JSON.parse(keys.stdout)).toEqual(
        (await stack.call('GET', '/api/v1/api-keys', { auth: token })).body,
      );

      const cost = await hallmark(['cost', '250', '--json'], auth);
      expect(JSON.parse(cost.stdout)).toEqual(
        (await stack.call('GET', '/api/billing/cost-preview/250', { auth: token })).body,
      );

      const people = await hallmark(['vouchers', 'list'], auth);
      expect(people.stdout).toMatch(/JSON0001.*fixed_amount.*500/);
    });

    it('completion scripts name every command', async () => {
      const bash = await hallmark(['completion', 'bash'], env);
      expect(bash.code).toBe(0);
      expect(bash.stdout).toContain('complete -o default -F _hallmark hallmark');
      expect(bash.stdout).toContain(
        '"bulk") opts="submit order watch status list retry fix cancel download template',
      );
      expect((await hallmark(['completion', 'zsh'], env)).stdout).toContain('bashcompinit');
    });
  });

  describe('in a terminal (tmux)', () => {
    it('the live bar redraws in place; Ctrl-C leaves the job running and prints how to re-attach', async () => {
      const { csv, zip } = await csvWithZip(dir, 'tmux', 500);
      const socket = `hallmark-cli-${randomBytes(4).toString('hex')}`;
      // An enterprise of its own: a fresh status-poll budget (100 per 15 minutes).
      const other = await stack.token();
      const pane = tmuxPane(socket, `${process.execPath} ${bin} bulk submit ${csv} --images ${zip} --wait`, {
        ...env,
        HALLMARK_TOKEN: other,
      });
      try {
        let shot = '';
        const deadline = Date.now() + 60_000;
        // Wait for the job bar with some items done, not yet finished.
        while (Date.now() < deadline) {
          shot = pane.capture();
          if (/job_\w+ processing\s+\|[█░]+\| \d+% [1-9]\d*\/500/.test(shot)) break;
          await new Promise((r) => setTimeout(r, 150));
        }
        writeFileSync(path.join(dir, 'progress-capture.txt'), shot.trimEnd() + '\n');
        console.log(`tmux capture of the live bar:\n${shot.trimEnd()}`);
        expect(shot).toMatch(/Uploading \|█+\| 100%/);
        expect(shot).toMatch(/job_\w+ processing\s+\|[█░]+\| \d+% \d+\/500 \| ✓ \d+ ✗ 0 \| [\d.]+\/s \| ETA/);
        // Redrawn in place: one job-bar line on screen, not one per update.
        expect(shot.match(/\| ETA/g)).toHaveLength(1);
        const jobId = /(job_\w+) processing/.exec(shot)![1]!;

        pane.keys('C-c');
        let after = '';
        for (let i = 0; i < 50 && !/Re-attach/.test(after); i++) {
          await new Promise((r) => setTimeout(r, 100));
          after = pane.capture();
        }
        expect(after).toContain(`Job ${jobId} keeps running on the server.`);
        expect(after).toContain(`Re-attach with: hallmark bulk watch ${jobId}`);
        expect(after).toContain('[exit 130]');
        // The job was not cancelled: it goes on past where the watcher stopped.
        const seen = Number(/ (\d+)\/500 \|/.exec(shot)![1]);
        const deadline2 = Date.now() + 60_000;
        let job: any;
        do {
          await new Promise((r) => setTimeout(r, 500));
          job = (await stack.call('GET', `/api/bulk-mint/${jobId}`, { auth: other })).body.data;
        } while (job.processedCount <= seen && Date.now() < deadline2);
        expect(job.status).not.toBe('cancelled');
        expect(job.processedCount).toBeGreaterThan(seen);
      } finally {
        pane.kill();
      }
    }, 200_000);
  });
}
