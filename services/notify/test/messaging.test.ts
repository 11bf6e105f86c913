// Email and SMS against real servers: local SMTP servers (the devstack sink, and
// smtp-server instances that refuse), and a local HTTP server speaking the Twilio messages
// API. Proves: primary → fallback on a refused connection and on SMTP 4xx/5xx; both down →
// a typed retryable error; idempotency by key; recipients stored encrypted and hashed;
// nothing about the recipient in the logs.
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { startSmtpSink, freePort, type SmtpSinkHandle } from '@hallmark/devstack';
import {
  bind,
  createGrpcClient,
  createLogger,
  Encryptor,
  HallmarkError,
  newId,
  sha256Hex,
  startGrpcServer,
  type Logger,
} from '@hallmark/kit';
import {
  MessagingServiceClient,
  MessagingServiceService,
  type MessagingServiceServer,
} from '@hallmark/proto/notify/v1/messaging';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import smtp from 'smtp-server';
import { EmailSender } from '../src/messaging/email.js';
import { createMessagingHandlers } from '../src/messaging/rpc.js';
import { Messaging, type SendInput } from '../src/messaging/service.js';
import { SmsSender } from '../src/messaging/sms.js';
import { MessagesStore } from '../src/messaging/store.js';
import { DocumentTemplatesStore, type Scope } from '../src/templates/store.js';
import { buildTemplate } from '../src/templates/domain/template.js';
import { errorOf, expectError, openTestDatabase, principal } from './templates-harness.js';

const KEY = Encryptor.generateKey();
let db: Awaited<ReturnType<typeof openTestDatabase>>;
let sink: SmtpSinkHandle;
let fallbackSink: SmtpSinkHandle;
const cleanups: (() => unknown)[] = [];

/** A logger that keeps every line, to prove no recipient ever reaches one. */
function captureLog(): { log: Logger; lines: string[] } {
  const lines: string[] = [];
  const write = (obj: unknown, msg?: string) => void lines.push(JSON.stringify(obj) + (msg ?? ''));
  const log = {
    info: write,
    warn: write,
    error: write,
    debug: write,
    trace: write,
    fatal: write,
  } as unknown as Logger;
  (log as any).child = () => log;
  return { log, lines };
}

function messaging(o: { smtpUrl?: string; fallbackUrl?: string; smsUrl?: string; timeoutMs?: number } = {}) {
  const { log, lines } = captureLog();
  const timeoutMs = o.timeoutMs ?? 2000;
  const email = o.smtpUrl
    ? new EmailSender({ primaryUrl: o.smtpUrl, fallbackUrl: o.fallbackUrl, timeoutMs, log })
    : undefined;
  if (email) cleanups.push(() => email.close());
  const m = new Messaging({
    messages: new MessagesStore(db.pool, 60_000),
    templates: new DocumentTemplatesStore(db.pool),
    encryptor: new Encryptor(KEY),
    email,
    sms: o.smsUrl ? new SmsSender({ url: o.smsUrl, from: '+15005550006', timeoutMs, log }) : undefined,
    emailFrom: 'Hallmark <no-reply@hallmark.test>',
    log,
  });
  return { m, lines };
}

const scope = (): Scope => ({ enterpriseId: newId('enterprise'), livemode: true, actorId: newId('user') });
const mail = (over: Partial<SendInput> = {}): SendInput => ({
  channel: 'email',
  to: `ada.${Math.random().toString(36).slice(2)}@example.com`,
  subject: 'Your gift is waiting',
  body: 'Claim it here.',
  idempotencyKey: `k-${Math.random().toString(36).slice(2)}`,
  ...over,
});

/** An SMTP server that refuses: at RCPT (e.g. 550) or after DATA (e.g. 451). */
async function refusingSmtp(opts: {
  rcpt?: number;
  data?: number;
}): Promise<{ url: string; attempts: () => number }> {
  let attempts = 0;
  const refuse = (code: number) => Object.assign(new Error(`refused ${code}`), { responseCode: code });
  const server = new smtp.SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onRcptTo(_a, _s, cb) {
      attempts++;
      cb(opts.rcpt ? refuse(opts.rcpt) : null);
    },
    onData(stream, _s, cb) {
      stream.resume();
      stream.on('end', () => cb(opts.data ? refuse(opts.data) : null));
    },
  });
  server.on('error', () => undefined);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.server.address() as { port: number }).port;
  cleanups.push(() => new Promise<void>((r) => server.close(() => r())));
  return { url: `smtp://127.0.0.1:${port}`, attempts: () => attempts };
}

beforeAll(async () => {
  db = await openTestDatabase();
  sink = await startSmtpSink();
  fallbackSink = await startSmtpSink();
});
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});
afterAll(async () => {
  await sink.stop();
  await fallbackSink.stop();
  await db.close();
});

describe('email', () => {
  it('sends through the primary; the log keeps the recipient only encrypted and hashed', async () => {
    const { m, lines } = messaging({ smtpUrl: sink.url, fallbackUrl: fallbackSink.url });
    const input = mail({ html: '<p>Claim it <a href="https://x.test/c/1">here</a>.</p>' });
    const r = await m.send(scope(), input);
    expect(r).toMatchObject({ channel: 'email', provider: 'smtp_primary', status: 'sent', replayed: false });
    expect(r.messageId).toMatch(/^msg_[0-9A-Za-z]{24}$/);
    const got = await sink.waitForMessage((x) => x.to.includes(input.to));
    expect(got).toMatchObject({ subject: 'Your gift is waiting', from: 'no-reply@hallmark.test' });
    expect(got.text.trim()).toBe('Claim it here.');
    expect(got.html).toContain('href="https://x.test/c/1"');
    expect(got.raw).toMatch(new RegExp(`^X-Hallmark-Message-Id: ${r.messageId}$`, 'im'));
    expect(fallbackSink.messages.some((x) => x.to.includes(input.to))).toBe(false);

    const { rows } = await db.pool.query('SELECT * FROM messages WHERE id = $1', [r.messageId]);
    const row = rows[0];
    expect(row).toMatchObject({ status: 'sent', provider: 'smtp_primary', channel: 'email', attempts: 1 });
    expect(JSON.stringify(row)).not.toContain(input.to);
    expect(new Encryptor(KEY).decrypt(row.recipient_encrypted)).toBe(input.to);
    expect(row.recipient_hash).toBe(sha256Hex(input.to.toLowerCase()));
    expect(lines.join('\n')).not.toContain(input.to);
  });

  it('falls back when the primary refuses connections (closed port)', async () => {
    const closed = await freePort();
    const { m, lines } = messaging({ smtpUrl: `smtp://127.0.0.1:${closed}`, fallbackUrl: fallbackSink.url });
    const input = mail();
    const r = await m.send(scope(), input);
    expect(r.provider).toBe('smtp_fallback');
    await fallbackSink.waitForMessage((x) => x.to.includes(input.to));
    expect(lines.join('\n')).toContain('"provider":"smtp_primary","code":"ESOCKET","command":"CONN"');
    expect(lines.join('\n')).not.toContain(input.to);
  });

  it('falls back when the primary answers SMTP 4xx or 5xx', async () => {
    for (const refusal of [{ data: 451 }, { data: 554 }, { rcpt: 421 }]) {
      const primary = await refusingSmtp(refusal);
      const { m } = messaging({ smtpUrl: primary.url, fallbackUrl: fallbackSink.url });
      const input = mail();
      const r = await m.send(scope(), input);
      expect(r.provider).toBe('smtp_fallback');
      expect(primary.attempts()).toBe(1);
      await fallbackSink.waitForMessage((x) => x.to.includes(input.to));
    }
  });

  it('both transports down → upstream_error (502, retryable), logged failed; a retry with the key sends once they are back', async () => {
    const [p1, p2] = [await freePort(), await freePort()];
    const down = messaging({ smtpUrl: `smtp://127.0.0.1:${p1}`, fallbackUrl: `smtp://127.0.0.1:${p2}` }).m;
    const s = scope();
    const input = mail();
    const err = await expectError(down.send(s, input), 'upstream_error');
    expect(err.retryable).toBe(true);
    expect(err.httpStatus).toBe(502);
    expect(err.message).not.toContain(input.to);
    const { rows } = await db.pool.query(
      'SELECT status, last_error FROM messages WHERE idempotency_key = $1',
      [input.idempotencyKey],
    );
    expect(rows).toEqual([{ status: 'failed', last_error: 'upstream_error' }]);

    const up = messaging({ smtpUrl: sink.url }).m;
    const r = await up.send(s, input);
    expect(r).toMatchObject({ provider: 'smtp_primary', replayed: false });
    await sink.waitForMessage((x) => x.to.includes(input.to));
    const after = await db.pool.query('SELECT status, attempts FROM messages WHERE idempotency_key = $1', [
      input.idempotencyKey,
    ]);
    expect(after.rows).toEqual([{ status: 'sent', attempts: 2 }]);
  });

  it('a recipient refused (5xx at RCPT) by every transport is validation_failed on `to`, not retryable', async () => {
    const a = await refusingSmtp({ rcpt: 550 });
    const b = await refusingSmtp({ rcpt: 553 });
    const { m } = messaging({ smtpUrl: a.url, fallbackUrl: b.url });
    const err = await expectError(m.send(scope(), mail()), 'validation_failed', 'to');
    expect(err.retryable).toBe(false);
  });

  it('is idempotent by key: a replay sends nothing; other content under the key is 409', async () => {
    const { m } = messaging({ smtpUrl: sink.url });
    const s = scope();
    const input = mail();
    const first = await m.send(s, input);
    const again = await m.send(s, input);
    expect(again).toMatchObject({ messageId: first.messageId, replayed: true, provider: 'smtp_primary' });
    await expectError(
      m.send(s, { ...input, body: 'Other text' }),
      'resource_already_exists',
      'idempotency_key',
    );
    // The same key in another enterprise is another message.
    expect((await m.send(scope(), input)).messageId).not.toBe(first.messageId);
    await new Promise((r) => setTimeout(r, 200));
    expect(sink.messages.filter((x) => x.to.includes(input.to))).toHaveLength(2);
  });

  it('concurrent sends with one key deliver exactly one message', async () => {
    const { m } = messaging({ smtpUrl: sink.url });
    const s = scope();
    const input = mail();
    const results = await Promise.allSettled(Array.from({ length: 6 }, () => m.send(s, input)));
    const sent = results.filter((r) => r.status === 'fulfilled' && !r.value.replayed);
    expect(sent).toHaveLength(1);
    for (const r of results)
      if (r.status === 'rejected') expect((r.reason as HallmarkError).code).toBe('resource_locked');
    await new Promise((r) => setTimeout(r, 200));
    expect(sink.messages.filter((x) => x.to.includes(input.to))).toHaveLength(1);
  });

  it('renders an email template: subject, escaped html, text part, a PDF attachment', async () => {
    const s = scope();
    const templates = new DocumentTemplatesStore(db.pool);
    const receipt = await templates.create(
      s,
      buildTemplate({
        name: 'Receipt',
        type: 'receipt',
        format: 'pdf',
        template: '# Receipt for {{customer}}\n\nPaid {{total}}',
        variables: [
          { name: 'customer', type: 'string', required: true },
          { name: 'total', type: 'currency', required: true },
        ],
      }),
      'Created',
    );
    const email = await templates.create(
      s,
      buildTemplate({
        name: 'Receipt mail',
        type: 'email',
        subject: 'Receipt for {{customer}}',
        body: '<p>Hello {{customer}}, you paid {{total}}.</p>',
        attachments: [{ filename: 'receipt-{{order}}.pdf', templateId: receipt.id }],
        variables: [
          { name: 'customer', type: 'string', required: true },
          { name: 'total', type: 'currency', required: true },
          { name: 'order', type: 'string', required: true },
        ],
      }),
      'Created',
    );
    const { m } = messaging({ smtpUrl: sink.url });
    const to = 'grace@example.com';
    const variables = { customer: 'Tom & <Jerry>', total: { amount: 2500, currency: 'USD' }, order: 'A-17' };
    await m.send(s, { channel: 'email', to, templateId: email.id, variables, idempotencyKey: 'tmpl-1' });
    const got = await sink.waitForMessage((x) => x.to.includes(to));
    expect(got.subject).toBe('Receipt for Tom & <Jerry>');
    expect(got.html).toContain('<p>Hello Tom &amp; &lt;Jerry&gt;, you paid $25.00.</p>');
    expect(got.text.trim()).toBe('Hello Tom & <Jerry>, you paid $25.00.');
    expect(got.raw).toMatch(/Content-Type: application\/pdf; name=receipt-A-17\.pdf/);
    await expectError(
      m.send(s, {
        channel: 'email',
        to,
        templateId: email.id,
        variables: { customer: 'x' },
        idempotencyKey: 'tmpl-2',
      }),
      'parameter_missing',
      'variables.total',
    );
    await expectError(
      m.send(s, { channel: 'email', to, templateId: receipt.id, variables, idempotencyKey: 'tmpl-3' }),
      'parameter_invalid',
      'template_id',
    );
    // Another enterprise cannot use the template.
    await expectError(
      m.send(scope(), { channel: 'email', to, templateId: email.id, variables, idempotencyKey: 'tmpl-4' }),
      'resource_not_found',
    );
  });

  it('refuses bad input before writing anything', async () => {
    const { m } = messaging({ smtpUrl: sink.url });
    const s = scope();
    await expectError(m.send(s, mail({ to: 'not-an-address' })), 'parameter_invalid', 'to');
    await expectError(m.send(s, mail({ subject: undefined })), 'parameter_missing', 'subject');
    await expectError(m.send(s, mail({ subject: 'a\r\nBcc: x@y.z' })), 'parameter_invalid', 'subject');
    await expectError(m.send(s, mail({ idempotencyKey: '' })), 'parameter_missing', 'idempotency_key');
    await expectError(m.send(s, mail({ channel: 'fax' })), 'parameter_invalid', 'channel');
    const { rows } = await db.pool.query('SELECT count(*)::int AS n FROM messages WHERE enterprise_id = $1', [
      s.enterpriseId,
    ]);
    expect(rows[0].n).toBe(0);
    const noEmail = messaging({}).m;
    await expectError(noEmail.send(s, mail()), 'service_unavailable');
  });
});

describe('sms', () => {
  interface Seen {
    method?: string;
    url?: string;
    auth?: string;
    type?: string;
    form: URLSearchParams;
  }
  let server: Server;
  let port: number;
  const seen: Seen[] = [];
  let answer: { status: number; body: unknown } = { status: 201, body: {} };

  const readBody = (req: IncomingMessage) =>
    new Promise<string>((resolve) => {
      let b = '';
      req.on('data', (c: Buffer) => (b += c.toString('utf8')));
      req.on('end', () => resolve(b));
    });

  beforeAll(async () => {
    // A local server speaking the Twilio messages API.
    server = createServer((req, res) => {
      void readBody(req).then((body) => {
        const form = new URLSearchParams(body);
        seen.push({
          method: req.method,
          url: req.url,
          auth: req.headers.authorization,
          type: req.headers['content-type'],
          form,
        });
        const ok = answer.status === 201;
        res.writeHead(answer.status, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify(
            ok
              ? { sid: `SM${seen.length.toString().padStart(32, '0')}`, status: 'queued', to: form.get('To') }
              : answer.body,
          ),
        );
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    port = (server.address() as { port: number }).port;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  const smsUrl = () => `http://AC0123456789abcdef:s3cr3t-token@127.0.0.1:${port}`;

  it('POSTs To, From, Body form-encoded with basic auth to the account Messages.json; stores the number encrypted and hashed', async () => {
    answer = { status: 201, body: {} };
    const { m, lines } = messaging({ smsUrl: smsUrl() });
    const s = scope();
    const r = await m.send(s, {
      channel: 'sms',
      to: '+1 (555) 010-9999',
      body: 'Your gift: https://x.test/c/abc',
      idempotencyKey: 'sms-1',
    });
    expect(r).toMatchObject({ channel: 'sms', provider: 'sms_http', status: 'sent' });
    expect(r.providerMessageId).toMatch(/^SM\d{32}$/);
    const req = seen.at(-1)!;
    expect(req.method).toBe('POST');
    expect(req.url).toBe('/2010-04-01/Accounts/AC0123456789abcdef/Messages.json');
    expect(req.auth).toBe(`Basic ${Buffer.from('AC0123456789abcdef:s3cr3t-token').toString('base64')}`);
    expect(req.type).toBe('application/x-www-form-urlencoded');
    expect(Object.fromEntries(req.form)).toEqual({
      To: '+15550109999',
      From: '+15005550006',
      Body: 'Your gift: https://x.test/c/abc',
    });

    const { rows } = await db.pool.query('SELECT * FROM messages WHERE id = $1', [r.messageId]);
    expect(rows[0].recipient_hash).toBe(sha256Hex('+15550109999'));
    expect(JSON.stringify(rows[0])).not.toContain('5550109999');
    expect(new Encryptor(KEY).decrypt(rows[0].recipient_encrypted)).toBe('+15550109999');
    const logText = lines.join('\n');
    expect(logText).not.toContain('5550109999');
    expect(logText).not.toContain('s3cr3t-token');

    const replay = await m.send(s, {
      channel: 'sms',
      to: '+15550109999',
      body: 'Your gift: https://x.test/c/abc',
      idempotencyKey: 'sms-1',
    });
    expect(replay).toMatchObject({ replayed: true, messageId: r.messageId });
  });

  it('sends a template as plain text', async () => {
    answer = { status: 201, body: {} };
    const s = scope();
    const tpl = await new DocumentTemplatesStore(db.pool).create(
      s,
      buildTemplate({
        name: 'Gift',
        type: 'email',
        subject: 'Gift',
        body: '<p>{{sender}} sent you a gift &amp; a note.</p>',
        variables: [{ name: 'sender', type: 'string', required: true }],
      }),
      'Created',
    );
    const { m } = messaging({ smsUrl: smsUrl() });
    await m.send(s, {
      channel: 'sms',
      to: '+447700900123',
      templateId: tpl.id,
      variables: { sender: 'Bo & <Co>' },
      idempotencyKey: 'x',
    });
    expect(seen.at(-1)!.form.get('Body')).toBe('Bo & <Co> sent you a gift & a note.');
  });

  it('maps provider answers: 400 → validation_failed on `to`; 503 and unreachable → upstream_error (retryable)', async () => {
    const { m } = messaging({ smsUrl: smsUrl() });
    const s = scope();
    const send = (key: string) =>
      m.send(s, { channel: 'sms', to: '+15550100000', body: 'hi', idempotencyKey: key });
    answer = {
      status: 400,
      body: { code: 21211, message: "The 'To' number is not a valid phone number.", status: 400 },
    };
    expect((await expectError(send('a'), 'validation_failed', 'to')).retryable).toBe(false);
    answer = { status: 503, body: { message: 'down' } };
    expect((await expectError(send('b'), 'upstream_error')).retryable).toBe(true);
    const unreachable = messaging({ smsUrl: `http://AC1:t@127.0.0.1:${await freePort()}` }).m;
    const err = await errorOf(
      unreachable.send(s, { channel: 'sms', to: '+15550100000', body: 'hi', idempotencyKey: 'c' }),
    );
    expect({ code: err.code, retryable: err.retryable }).toEqual({ code: 'upstream_error', retryable: true });
    await expectError(
      m.send(s, { channel: 'sms', to: '555-0100', body: 'hi', idempotencyKey: 'd' }),
      'parameter_invalid',
      'to',
    );
    await expectError(
      m.send(s, { channel: 'sms', to: '+15550100000', body: 'x'.repeat(1601), idempotencyKey: 'e' }),
      'parameter_invalid',
      'body',
    );
  });
});

describe('MessagingService over gRPC', () => {
  it('sends, replays and refuses with typed errors across the wire', async () => {
    const { m } = messaging({ smtpUrl: sink.url });
    const server = await startGrpcServer({
      name: 'messaging-test',
      address: '127.0.0.1:0',
      services: [bind<MessagingServiceServer>(MessagingServiceService, createMessagingHandlers(m))],
      log: createLogger('messaging-test', 'silent'),
    });
    const client = createGrpcClient(MessagingServiceClient, `127.0.0.1:${server.port}`);
    cleanups.push(async () => {
      client.close();
      await server.shutdown(1000);
    });
    const p = principal();
    const req = {
      principal: p,
      channel: 'email',
      to: 'wire@example.com',
      subject: 'Over the wire',
      body: 'Hello',
      locale: '',
      idempotency_key: 'gift_123:notify',
    };
    const r = await client.api.send(req);
    expect(r).toMatchObject({ channel: 'email', provider: 'smtp_primary', status: 'sent', replayed: false });
    expect(Date.parse(r.sent_at)).not.toBeNaN();
    await sink.waitForMessage((x) => x.to.includes('wire@example.com'));
    expect(await client.api.send(req)).toMatchObject({ message_id: r.message_id, replayed: true });
    const err = await client.api.send({ ...req, idempotency_key: 'k2', to: 'nope' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HallmarkError);
    expect(err).toMatchObject({ code: 'parameter_invalid', param: 'to', httpStatus: 400 });
  });
});
