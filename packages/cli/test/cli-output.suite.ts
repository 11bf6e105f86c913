// The built `hallmark` CLI against the running stack, continued from cli.suite.ts: `bulk fix`,
// failures that exit non-zero with the API's code and request id, --json printing exactly the
// API's objects, and the live bar in a tmux pane (Ctrl-C leaves the job running). Run by
// e2e.test.ts after cliSuite, on the same stack and CLI config.
import { beforeAll, describe, expect, it } from '@jest/globals';
import type { TestStack } from '@hallmark/e2e';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { bin, csvWithZip, hallmark, tmuxPane } from './run.js';

let stack: TestStack;
let token: string;
let dir: string;
let env: Record<string, string>;

interface CliState {
  stack: TestStack;
  token: string;
  dir: string;
  env: Record<string, string>;
}

export function cliOutputSuite(getState: () => CliState) {
  beforeAll(() => {
    ({ stack, token, dir, env } = getState());
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
    const ROWS = 5000;
    it('the live bar redraws in place; Ctrl-C leaves the job running and prints how to re-attach', async () => {
      // Enough rows (100 batches of 50) that the job is still running over several status polls
      // (1 s apart) on a fast, quiet machine: 500 rows once went from queued to completed
      // between two polls, and 2,000 ran at ~690 items/s.
      const { csv, zip } = await csvWithZip(dir, 'tmux', ROWS);
      const socket = `hallmark-cli-${randomBytes(4).toString('hex')}`;
      // An enterprise of its own: a fresh status-poll budget (100 per 15 minutes).
      const other = await stack.token();
      const pane = tmuxPane(socket, `${process.execPath} ${bin} bulk submit ${csv} --images ${zip} --wait`, {
        ...env,
        HALLMARK_TOKEN: other,
      });
      try {
        let shot = '';
        // A loaded CI machine once took over a minute to upload, unpack and mint the first batch.
        const deadline = Date.now() + 150_000;
        // Wait for the job bar with some items done, not yet finished.
        while (Date.now() < deadline) {
          shot = pane.capture();
          if (new RegExp(`job_\\w+ processing\\s+\\|[█░]+\\| \\d+% [1-9]\\d*/${ROWS}`).test(shot)) break;
          await new Promise((r) => setTimeout(r, 150));
        }
        writeFileSync(path.join(dir, 'progress-capture.txt'), shot.trimEnd() + '\n');
        console.log(`tmux capture of the live bar:\n${shot.trimEnd()}`);
        expect(shot).toMatch(/Uploading \|█+\| 100%/);
        expect(shot).toMatch(
          new RegExp(
            `job_\\w+ processing\\s+\\|[█░]+\\| \\d+% \\d+/${ROWS} \\| ✓ \\d+ ✗ 0 \\| [\\d.]+/s \\| ETA`,
          ),
        );
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
        const seen = Number(new RegExp(` (\\d+)/${ROWS} \\|`).exec(shot)![1]);
        const deadline2 = Date.now() + 60_000;
        let job: any;
        do {
          await new Promise((r) => setTimeout(r, 500));
          job = (await stack.call('GET', `/api/bulk-mint/${jobId}`, { auth: other })).body.data;
        } while (job.processedCount <= seen && Date.now() < deadline2);
        expect(job.status).not.toBe('cancelled');
        expect(job.processedCount).toBeGreaterThan(seen);
        // Proven: cancelled now. The rest of its 5,000 mints only loaded the machine under this
        // file's later tests (and the other test file running beside it).
        const cancel = await stack.call('POST', `/api/bulk-mint/${jobId}/cancel`, { auth: other });
        expect(cancel.status).toBe(200);
      } finally {
        pane.kill();
      }
    }, 300_000);
  });
}
