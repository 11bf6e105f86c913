// A real SMTP server (smtp-server) that accepts every message and keeps it in memory, parsed
// with mailparser. It stands in for a mail provider in `pnpm start` and lets tests assert on
// exactly what the notify service sent over the wire. Like the SMS stand-in, it lists what it
// got as JSON over HTTP (`GET /messages`, on a port of its own), which `hallmark inbox` reads.
import mailparser from 'mailparser';
import { createServer } from 'node:http';
import smtp from 'smtp-server';
import type { AddressObject } from 'mailparser';
import { track } from './registry.js';
import { waitFor } from './wait.js';

export interface SinkMessage {
  /** Envelope sender (MAIL FROM). */
  from: string;
  /** Envelope recipients (RCPT TO): includes Bcc, which headers do not show. */
  to: string[];
  subject: string;
  text: string;
  html?: string;
  /** Header `To`/`From` as written in the message, for display checks. */
  headerTo?: string;
  headerFrom?: string;
  raw: string;
  receivedAt: Date;
}

export interface SmtpSinkOptions {
  /** 0 = any free port. */
  port?: number;
  /** Oldest messages are dropped beyond this, so a long-running dev stack does not grow forever. */
  maxMessages?: number;
  /** Port of the HTTP listing (`GET /messages`); 0 = any free port. */
  httpPort?: number;
}

export interface SmtpSinkHandle {
  url: string;
  port: number;
  /** `http://127.0.0.1:<httpPort>/messages`: every message as JSON, oldest first (no raw source). */
  messagesUrl: string;
  messages: SinkMessage[];
  /** Resolves with the first (already received or future) message matching `match`. */
  waitForMessage(match?: (m: SinkMessage) => boolean, timeoutMs?: number): Promise<SinkMessage>;
  stop(): Promise<void>;
}

const addressText = (a: AddressObject | AddressObject[] | undefined): string | undefined =>
  a === undefined ? undefined : Array.isArray(a) ? a.map((x) => x.text).join(', ') : a.text;

export async function startSmtpSink(opts: SmtpSinkOptions = {}): Promise<SmtpSinkHandle> {
  const maxMessages = opts.maxMessages ?? 1000;
  const messages: SinkMessage[] = [];

  const server = new smtp.SMTPServer({
    authOptional: true,
    // Plain SMTP on loopback: no certificate to manage, and nodemailer falls back cleanly.
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('error', callback);
      stream.on('end', () => {
        const raw = Buffer.concat(chunks);
        mailparser
          .simpleParser(raw)
          .then((parsed) => {
            const mailFrom = session.envelope.mailFrom;
            messages.push({
              from: mailFrom ? mailFrom.address : '',
              to: session.envelope.rcptTo.map((r) => r.address),
              subject: parsed.subject ?? '',
              text: parsed.text ?? '',
              ...(typeof parsed.html === 'string' ? { html: parsed.html } : {}),
              ...(addressText(parsed.to) !== undefined ? { headerTo: addressText(parsed.to) } : {}),
              ...(addressText(parsed.from) !== undefined ? { headerFrom: addressText(parsed.from) } : {}),
              raw: raw.toString('utf8'),
              receivedAt: new Date(),
            });
            if (messages.length > maxMessages) messages.splice(0, messages.length - maxMessages);
            callback();
          })
          .catch((err: Error) => callback(err));
      });
    },
  });
  // A client that disconnects mid-message must not crash the stack.
  server.on('error', () => undefined);

  await new Promise<void>((resolve, reject) => {
    server.server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', () => resolve());
  });
  const addr = server.server.address();
  const port = typeof addr === 'object' && addr ? addr.port : 0;

  const http = createServer((req, res) => {
    const ok = req.method === 'GET' && req.url === '/messages';
    res.writeHead(ok ? 200 : 404, { 'content-type': 'application/json' });
    res.end(JSON.stringify(ok ? messages.map(({ raw: _raw, ...m }) => m) : { error: 'GET /messages' }));
  });
  try {
    await new Promise<void>((resolve, reject) => {
      http.once('error', reject);
      http.listen(opts.httpPort ?? 0, '127.0.0.1', () => resolve());
    });
  } catch (err) {
    server.close();
    throw err;
  }
  const httpPort = (http.address() as { port: number }).port;

  let stopping: Promise<void> | undefined;
  const handle: SmtpSinkHandle = {
    url: `smtp://127.0.0.1:${port}`,
    port,
    messagesUrl: `http://127.0.0.1:${httpPort}/messages`,
    messages,
    waitForMessage: (match = () => true, timeoutMs = 10_000) =>
      waitFor(() => messages.find(match), { what: 'an email in the SMTP sink', timeoutMs, intervalMs: 25 }),
    stop() {
      stopping ??= Promise.all([
        new Promise<void>((resolve) => server.close(() => resolve())),
        new Promise<void>((resolve) => {
          http.close(() => resolve());
          http.closeAllConnections();
        }),
      ])
        .then(() => undefined)
        .finally(untrack);
      return stopping;
    },
  };
  const untrack = track(handle);
  return handle;
}
