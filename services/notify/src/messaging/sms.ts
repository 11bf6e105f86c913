// SMS through an HTTP provider speaking the Twilio messages API:
// POST {base}/2010-04-01/Accounts/{sid}/Messages.json, form-encoded To, From, Body, HTTP
// basic auth sid:token (from the URL's userinfo). A 400 from the provider refuses the
// message (validation_failed, param `to`); other failures, timeouts included, are
// upstream_error (502, retryable). No redirects are followed.
import { HallmarkError } from '@hallmark/kit';
import type { Logger } from '@hallmark/kit';

export interface SmsSent {
  provider: 'sms_http';
  providerMessageId: string;
}

export interface SmsSenderOptions {
  url: string;
  from: string;
  timeoutMs: number;
  log: Logger;
}

export const MAX_SMS_LENGTH = 1600;

export class SmsSender {
  private readonly endpoint: string;
  private readonly authorization: string;

  constructor(private readonly opts: SmsSenderOptions) {
    const u = new URL(opts.url);
    const sid = decodeURIComponent(u.username);
    const token = decodeURIComponent(u.password);
    const base = u.pathname.replace(/\/+$/, '');
    this.endpoint = `${u.origin}${base}/2010-04-01/Accounts/${encodeURIComponent(sid)}/Messages.json`;
    this.authorization = `Basic ${Buffer.from(`${sid}:${token}`).toString('base64')}`;
  }

  async send(to: string, body: string, messageId: string): Promise<SmsSent> {
    let res: Response;
    try {
      res = await fetch(this.endpoint, {
        method: 'POST',
        headers: {
          authorization: this.authorization,
          'content-type': 'application/x-www-form-urlencoded',
          accept: 'application/json',
        },
        body: new URLSearchParams({ To: to, From: this.opts.from, Body: body }).toString(),
        redirect: 'error',
        signal: AbortSignal.timeout(this.opts.timeoutMs),
      });
    } catch (err) {
      const name = (err as Error).name;
      this.opts.log.warn(
        { message_id: messageId, provider: 'sms_http', error: name },
        'sms provider unreachable',
      );
      throw new HallmarkError('upstream_error', {
        message:
          name === 'TimeoutError'
            ? 'The SMS provider timed out. Retry later.'
            : 'The SMS provider is unreachable. Retry later.',
      });
    }
    const payload = (await res.json().catch(() => ({}))) as { sid?: unknown; code?: unknown };
    if (res.ok && typeof payload.sid === 'string')
      return { provider: 'sms_http', providerMessageId: payload.sid };
    this.opts.log.warn(
      { message_id: messageId, provider: 'sms_http', status: res.status, provider_code: payload.code },
      'sms provider refused',
    );
    if (res.status === 400) {
      throw new HallmarkError('validation_failed', {
        param: 'to',
        message: 'The SMS provider refused the message.',
        extras: { errors: [{ field: 'to', message: 'refused by the SMS provider' }] },
      });
    }
    throw new HallmarkError('upstream_error', {
      message: `The SMS provider failed (HTTP ${res.status}). Retry later.`,
    });
  }
}
