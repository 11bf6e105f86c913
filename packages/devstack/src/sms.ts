// A local SMS provider speaking Twilio's messages API (the protocol notify's SmsSender uses):
// POST /2010-04-01/Accounts/{sid}/Messages.json, form-encoded To, From, Body, HTTP basic auth
// sid:token. It keeps every message in memory so `pnpm start` users and tests can read what
// was sent (GET /messages lists them as JSON).
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import { track } from './registry.js';
import { waitFor } from './wait.js';

export interface SmsMessage {
  sid: string;
  to: string;
  from: string;
  body: string;
  receivedAt: Date;
}

export interface SmsServerHandle {
  /** For HALLMARK_SMS_URL: http://<sid>:<token>@127.0.0.1:<port> */
  url: string;
  port: number;
  messages: SmsMessage[];
  waitForMessage(match?: (m: SmsMessage) => boolean, timeoutMs?: number): Promise<SmsMessage>;
  stop(): Promise<void>;
}

const SID = 'ACdevstack0000000000000000000000';

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of req) {
    size += (c as Buffer).length;
    if (size > 64 * 1024) throw new Error('body too large');
    chunks.push(c as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export async function startSmsServer(
  opts: { port?: number; maxMessages?: number } = {},
): Promise<SmsServerHandle> {
  const token = randomBytes(16).toString('hex');
  const expectedAuth = `Basic ${Buffer.from(`${SID}:${token}`).toString('base64')}`;
  const messages: SmsMessage[] = [];
  const max = opts.maxMessages ?? 1000;
  const server = createServer((req, res) => {
    const reply = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (req.method === 'GET' && req.url === '/messages') return reply(200, messages);
    if (req.method !== 'POST' || req.url !== `/2010-04-01/Accounts/${SID}/Messages.json`)
      return reply(404, { code: 20404, message: 'The requested resource was not found', status: 404 });
    if (req.headers.authorization !== expectedAuth)
      return reply(401, { code: 20003, message: 'Authenticate', status: 401 });
    readBody(req).then(
      (raw) => {
        const form = new URLSearchParams(raw);
        const to = form.get('To') ?? '';
        const body = form.get('Body') ?? '';
        if (!/^\+[1-9]\d{6,14}$/.test(to))
          return reply(400, {
            code: 21211,
            message: `The 'To' number ${to} is not a valid phone number.`,
            status: 400,
          });
        if (!body) return reply(400, { code: 21602, message: 'Message body is required.', status: 400 });
        const m: SmsMessage = {
          sid: `SM${randomBytes(16).toString('hex')}`,
          to,
          from: form.get('From') ?? '',
          body,
          receivedAt: new Date(),
        };
        messages.push(m);
        if (messages.length > max) messages.shift();
        reply(201, { sid: m.sid, status: 'queued', to: m.to, from: m.from, body: m.body });
      },
      () => reply(400, { code: 21600, message: 'Bad request', status: 400 }),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as { port: number }).port;
  let stopping: Promise<void> | undefined;
  const handle: SmsServerHandle = {
    url: `http://${SID}:${token}@127.0.0.1:${port}`,
    port,
    messages,
    waitForMessage: (match = () => true, timeoutMs = 10_000) =>
      waitFor(() => messages.find(match), {
        timeoutMs,
        what: 'an SMS at the local SMS server',
        intervalMs: 25,
      }),
    stop() {
      stopping ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }).finally(untrack);
      return stopping;
    },
  };
  const untrack = track(handle);
  return handle;
}
