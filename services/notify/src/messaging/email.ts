// Email through nodemailer: the primary SMTP transport, and the fallback when the primary
// fails for any reason (refused or timed-out connection, an SMTP 4xx/5xx reply). When
// every transport fails the error says whether retrying can help: a recipient refused
// with a 5xx by every transport is permanent (validation_failed, param `to`); anything
// else is upstream_error (502, retryable). Provider replies never reach the caller.
import { HallmarkError } from '@hallmark/kit';
import nodemailer, { type Transporter } from 'nodemailer';
import type { Logger } from '@hallmark/kit';

export interface EmailMessage {
  from: string;
  to: string;
  subject: string;
  text: string;
  html?: string;
  attachments?: { filename: string; content: Buffer; contentType: string }[];
  /** Our message id, as a header, so a provider's logs can be matched to the message log. */
  messageId: string;
}

export interface EmailSent {
  provider: 'smtp_primary' | 'smtp_fallback';
  providerMessageId: string;
}

interface SmtpError extends Error {
  code?: string;
  responseCode?: number;
  command?: string;
}

export interface EmailSenderOptions {
  primaryUrl: string;
  fallbackUrl?: string;
  timeoutMs: number;
  log: Logger;
}

export class EmailSender {
  private readonly transports: { name: EmailSent['provider']; transport: Transporter }[];
  private readonly log: Logger;

  constructor(opts: EmailSenderOptions) {
    const make = (url: string) =>
      nodemailer.createTransport({
        url,
        connectionTimeout: opts.timeoutMs,
        greetingTimeout: opts.timeoutMs,
        socketTimeout: opts.timeoutMs * 3,
        // Never let nodemailer print a conversation (it would hold addresses).
        logger: false,
        debug: false,
      });
    this.transports = [{ name: 'smtp_primary', transport: make(opts.primaryUrl) }];
    if (opts.fallbackUrl) this.transports.push({ name: 'smtp_fallback', transport: make(opts.fallbackUrl) });
    this.log = opts.log;
  }

  async send(m: EmailMessage): Promise<EmailSent> {
    const failures: SmtpError[] = [];
    for (const { name, transport } of this.transports) {
      try {
        const info = await transport.sendMail({
          from: m.from,
          to: m.to,
          subject: m.subject,
          text: m.text,
          ...(m.html ? { html: m.html } : {}),
          ...(m.attachments?.length ? { attachments: m.attachments } : {}),
          headers: { 'X-Hallmark-Message-Id': m.messageId },
        });
        return { provider: name, providerMessageId: String(info.messageId ?? '') };
      } catch (err) {
        const e = err as SmtpError;
        failures.push(e);
        // Class and SMTP code only: the reply text can quote the recipient.
        this.log.warn(
          {
            message_id: m.messageId,
            provider: name,
            code: e.code,
            smtp_code: e.responseCode,
            command: e.command,
          },
          'email transport failed',
        );
      }
    }
    throw classify(failures);
  }

  close(): void {
    for (const { transport } of this.transports) transport.close();
  }
}

export function classify(failures: SmtpError[]): HallmarkError {
  const refused = (e: SmtpError) =>
    e.responseCode !== undefined && e.responseCode >= 500 && /^RCPT/i.test(e.command ?? '');
  if (failures.length > 0 && failures.every(refused)) {
    return new HallmarkError('validation_failed', {
      param: 'to',
      message: 'The recipient address was refused by the mail provider.',
      extras: { errors: [{ field: 'to', message: 'refused by the mail provider' }] },
    });
  }
  return new HallmarkError('upstream_error', {
    message: `Email could not be sent: ${failures.length > 1 ? 'every mail transport' : 'the mail transport'} failed. Retry later.`,
    extras: {
      provider_errors: failures.map((e) => e.code ?? (e.responseCode ? `SMTP ${e.responseCode}` : 'error')),
    },
  });
}
