// The built `hallmark` CLI as a subprocess against a whole running stack (anvil, Restate):
// login saved 0600 and overridden by the environment; a 500-row CSV + ZIP job submitted with
// --wait shows its bars and ends with the summary and exit 0; failures exit non-zero with the
// API's code and request id; --json prints exactly the API's objects; in a tmux pane the live
// bar redraws and Ctrl-C leaves the job running with the line to re-attach (the last three:
// cli-output.suite.ts). Run by e2e.test.ts on its stack (bulk batches of 50, so progress moves in
// steps a bar can show).
import { beforeAll, describe, expect, it } from '@jest/globals';
import type { TestStack } from '@hallmark/e2e';
import { verifyWebhook } from '@hallmark/client';
import type { Receiver } from '../../client/test/receiver.js';
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { csvWithZip, hallmark } from './run.js';

let stack: TestStack;
let token: string;
let dir: string;
let env: Record<string, string>;
let bigJobId = '';

/** What cli-output.suite.ts continues with: the same stack, session token and CLI config. */
export const cliState = () => ({ stack, token, dir, env });

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
}
