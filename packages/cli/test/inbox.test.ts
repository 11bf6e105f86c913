// `hallmark inbox` reads both stand-ins of a dev stack — the SMTP sink's and the SMS server's
// `GET /messages` — found through the data folder the stack writes (inbox.json): there was no
// way to read the e-mails a stack sent.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  startSmsServer,
  startSmtpSink,
  writeInbox,
  type SmsServerHandle,
  type SmtpSinkHandle,
} from '@hallmark/devstack';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildCli } from './run.js';

let smtp: SmtpSinkHandle;
let sms: SmsServerHandle;
let bin: string;
let dataDir: string;

beforeAll(async () => {
  const tmp = mkdtempSync(path.join(tmpdir(), 'hallmark-inbox-'));
  bin = buildCli(path.join(tmp, 'hallmark.js'));
  [smtp, sms] = await Promise.all([startSmtpSink(), startSmsServer()]);
  dataDir = path.join(tmp, 'data');
  writeInbox(dataDir, { email: smtp.messagesUrl, sms: `http://127.0.0.1:${sms.port}/messages` });
  // Received by the stand-ins (their wire protocols are tested in packages/devstack).
  smtp.messages.push({
    from: 'noreply@hallmark.test',
    to: ['ada@example.com'],
    subject: 'A certificate was gifted to you: Seamaster',
    text: 'Claim it: http://127.0.0.1:8080/claim/abc',
    raw: '',
    receivedAt: new Date('2026-01-01T10:00:00Z'),
  });
  const url = new URL(sms.url);
  const sent = await fetch(`http://127.0.0.1:${sms.port}/2010-04-01/Accounts/${url.username}/Messages.json`, {
    method: 'POST',
    headers: { authorization: `Basic ${Buffer.from(`${url.username}:${url.password}`).toString('base64')}` },
    body: new URLSearchParams({ To: '+15550109999', From: '+15550000000', Body: 'Hallmark: claim it by …' }),
  });
  expect(sent.status).toBe(201);
});

afterAll(async () => {
  await smtp?.stop();
  await sms?.stop();
});

/** Asynchronous: the stand-ins answer from this very process. */
const inbox = async (args: string[]) =>
  (
    await promisify(execFile)(process.execPath, [bin, 'inbox', ...args], {
      env: { PATH: process.env.PATH, HOME: dataDir, HALLMARK_DATA_DIR: dataDir },
      encoding: 'utf8',
    })
  ).stdout;

describe('hallmark inbox', () => {
  it('lists the e-mails and the texts the stack received, newest first, each with its channel', async () => {
    const all = JSON.parse(await inbox(['--json'])) as Record<string, unknown>[];
    expect(all.map((m) => [m.channel, m.to])).toEqual([
      ['sms', '+15550109999'],
      ['email', 'ada@example.com'],
    ]);
    expect(all[1]).toMatchObject({ subject: 'A certificate was gifted to you: Seamaster' });
    const table = await inbox([]);
    expect(table).toContain('A certificate was gifted to you: Seamaster');
    expect(table).toContain('Hallmark: claim it by …');
  });

  it('filters by recipient and by channel', async () => {
    expect(JSON.parse(await inbox(['--json', '--to', 'ADA@example.com']))).toHaveLength(1);
    expect(
      (JSON.parse(await inbox(['--json', '--channel', 'sms'])) as { channel: string }[]).map(
        (m) => m.channel,
      ),
    ).toEqual(['sms']);
  });
});
