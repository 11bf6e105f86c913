// `hallmark listen`: webhooks on a laptop (the anchor is `stripe listen`). Opens the gateway's
// event stream (a real listen session in notify, with its own delivery records), prints each
// event and, with --forward-to, POSTs it to a local URL with the exact body and signature
// headers an endpoint would get (signed with the session's secret, printed first), then prints
// the local answer. Ctrl-C ends the session.
import { HallmarkError, type HallmarkErrorType } from '@hallmark/client';
import { listen, ListenError } from '@hallmark/listen';
import { Command, Option } from 'commander';
import { resolveConfig } from '../config.js';
import { Ctx, maskKey } from '../context.js';

const TYPE_OF_STATUS: Record<number, HallmarkErrorType> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'resource_error',
  429: 'rate_limit_error',
};

export function listenCommand(): Command {
  return new Command('listen')
    .description('Receive events as a webhook endpoint would, and forward them to a local URL')
    .option('--events <types>', 'comma-separated event types (default: every type)')
    .option(
      '--forward-to <url>',
      'POST each event here with its real headers (e.g. http://localhost:3000/hook)',
    )
    .addOption(
      new Option(
        '--mode <mode>',
        "test or live (default: an API key's own mode, so a pk_live_ key listens live; a session token: test)",
      ).choices(['test', 'live']),
    )
    .action(async (o: { events?: string; forwardTo?: string; mode?: 'test' | 'live' }, cmd: Command) => {
      const ctx = Ctx.of(cmd);
      const flags = cmd.optsWithGlobals() as { baseUrl?: string; apiKey?: string; token?: string };
      const cfg = resolveConfig({ baseUrl: flags.baseUrl, apiKey: flags.apiKey, token: flags.token });
      const credential = cfg.apiKey ?? cfg.token;
      if (!credential) throw new Error('no credential: run `hallmark login` or set HALLMARK_API_KEY');
      const stop = new AbortController();
      const onSigint = () => stop.abort();
      process.once('SIGINT', onSigint);
      const l = listen({
        baseUrl: cfg.baseUrl,
        credential,
        events: o.events ? o.events.split(',').map((e) => e.trim()) : undefined,
        mode: o.mode,
        forwardTo: o.forwardTo,
        signal: stop.signal,
        onSession: (s) => {
          if (ctx.json) process.stdout.write(JSON.stringify({ session: s }) + '\n');
          else
            console.error(
              `Listening (${s.livemode ? 'live' : 'test'} mode, session ${s.id}, ` +
                `${cfg.apiKey ? `key ${maskKey(cfg.apiKey)}` : 'session token'}) for ` +
                `${s.events.length ? s.events.join(', ') : 'every event'}.\n` +
                `Signing secret: ${s.secret}` +
                (o.forwardTo ? `\nForwarding to ${o.forwardTo}` : '') +
                '\nCtrl-C to stop.',
            );
        },
        onEvent: (e, fwd) => {
          if (ctx.json) {
            process.stdout.write(JSON.stringify({ event: e, forwarded: fwd ?? null }) + '\n');
            return;
          }
          const answer = fwd
            ? fwd.status === null
              ? ` → ${o.forwardTo} failed: ${fwd.error}`
              : ` → ${fwd.status} in ${fwd.latencyMs} ms`
            : '';
          console.log(`${new Date().toISOString()}  ${e.type}  ${e.event_id}${answer}`);
        },
      });
      try {
        await l.session;
        await l.done;
      } catch (err) {
        if (err instanceof ListenError)
          throw new HallmarkError({
            type: TYPE_OF_STATUS[err.status] ?? 'api_error',
            code: err.code ?? 'listen_refused',
            message: err.message,
            status: err.status,
            request_id: err.requestId,
          });
        if (!stop.signal.aborted) throw err;
      } finally {
        process.off('SIGINT', onSigint);
      }
    });
}
