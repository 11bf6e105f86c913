// `hallmark inbox`: what the dev stack's stand-ins were sent — the SMTP sink's e-mails and the
// SMS server's texts (each lists them at `GET /messages`), newest first in one table. Where
// they listen comes from the stack's data folder (inbox.json), else pnpm start's fixed ports.
import { readInbox, type InboxUrls } from '@hallmark/devstack/inbox';
import { Command, Option } from 'commander';
import { Ctx, table } from '../context.js';
import { devDataDir } from '../dev-session.js';

const DEFAULTS: InboxUrls = {
  email: 'http://127.0.0.1:2527/messages',
  sms: 'http://127.0.0.1:2526/messages',
};

export interface InboxMessage {
  channel: 'email' | 'sms';
  to: string;
  receivedAt: string;
  /** E-mail: subject, text, html, from, headerTo, headerFrom. SMS: body, from, sid. */
  [field: string]: unknown;
}

async function list(channel: 'email' | 'sms', url: string): Promise<InboxMessage[]> {
  const res = await fetch(url, { signal: AbortSignal.timeout(5000) });
  if (!res.ok) throw new Error(`${url} answered HTTP ${res.status}`);
  const got = (await res.json()) as Record<string, unknown>[];
  // The SMTP sink lists envelope recipients (an array), the SMS server one number.
  return got.map((m) => ({
    ...m,
    channel,
    to: Array.isArray(m.to) ? m.to.join(', ') : String(m.to),
    receivedAt: String(m.receivedAt),
  }));
}

const firstLine = (m: InboxMessage) =>
  String(m.channel === 'email' ? m.subject : m.body)
    .split('\n')[0]!
    .slice(0, 80);

export function inboxCommand(): Command {
  return new Command('inbox')
    .description("E-mails and texts the dev stack's SMTP sink and SMS server received, newest first")
    .option('--to <recipient>', 'only messages to this address or number (case-insensitive)')
    .addOption(new Option('--channel <channel>', 'only e-mail or only SMS').choices(['email', 'sms']))
    .option('--limit <n>', 'at most this many (default 20)', (v) => Number.parseInt(v, 10), 20)
    .addHelpText(
      'after',
      '\nReads GET /messages of each stand-in `pnpm start` runs (their URLs are in the data folder,\n' +
        'HALLMARK_DATA_DIR or ./.hallmark). --json prints the messages as the stand-ins list them,\n' +
        'each with its channel. A provider set by SMTP_URL or HALLMARK_SMS_URL has no inbox here.',
    )
    .action(async (o: { to?: string; channel?: 'email' | 'sms'; limit: number }, cmd: Command) => {
      const ctx = Ctx.of(cmd);
      const urls = readInbox(devDataDir()) ?? DEFAULTS;
      const sources = (['email', 'sms'] as const).filter((c) => urls[c] && (!o.channel || o.channel === c));
      if (sources.length === 0)
        throw new Error('No inbox: this stack sends through SMTP_URL / HALLMARK_SMS_URL.');
      const results = await Promise.allSettled(sources.map((c) => list(c, urls[c]!)));
      const messages: InboxMessage[] = [];
      results.forEach((r, i) => {
        if (r.status === 'fulfilled') messages.push(...r.value);
        else
          process.stderr.write(
            `No ${sources[i]} inbox at ${urls[sources[i]!]}: ${(r.reason as Error).message}\n`,
          );
      });
      if (results.every((r) => r.status === 'rejected'))
        throw new Error(
          'No inbox answered: is `pnpm start` running (or HALLMARK_DATA_DIR set to its data folder)?',
        );
      const to = o.to?.toLowerCase();
      const shown = messages
        .filter((m) => !to || m.to.toLowerCase().includes(to))
        .sort((a, b) => b.receivedAt.localeCompare(a.receivedAt))
        .slice(0, o.limit);
      ctx.print(shown, () => {
        if (shown.length === 0) return console.log('No messages.');
        table(
          ['received', 'channel', 'to', 'subject / text'],
          shown.map((m) => [m.receivedAt.slice(0, 19).replace('T', ' '), m.channel, m.to, firstLine(m)]),
        );
      });
    });
}
