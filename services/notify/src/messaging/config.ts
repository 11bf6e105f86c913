// Env of the email and SMS half (spread into the service's one config schema). Provider
// URLs carry credentials in their userinfo: they are never logged.
import { z } from 'zod';

const smtpUrl = z
  .string()
  .url()
  .refine((u) => /^smtps?:$/.test(new URL(u).protocol), 'expected smtp:// or smtps://');

export const messagingEnv = {
  /** Primary SMTP transport (smtp://user:pass@host:port or smtps://…). Unset: email is unavailable. */
  SMTP_URL: smtpUrl.optional(),
  /** Used for a message the primary failed (connection failure, SMTP 4xx/5xx). */
  SMTP_FALLBACK_URL: smtpUrl.optional(),
  HALLMARK_EMAIL_FROM: z.string().min(3).default('Hallmark <no-reply@hallmark.local>'),
  /** Twilio-style provider: https://<account sid>:<auth token>@api.example.com[/base]. Unset: SMS is unavailable. */
  HALLMARK_SMS_URL: z
    .string()
    .url()
    .refine(
      (u) => /^https?:$/.test(new URL(u).protocol) && new URL(u).username !== '',
      'expected http(s)://sid:token@host',
    )
    .optional(),
  /** Sender number (E.164) or messaging service id the provider knows. */
  HALLMARK_SMS_FROM: z.string().min(1).default('+15005550006'),
  /** Per SMTP connection phase (connect, greeting) and per SMS request. */
  HALLMARK_NOTIFY_PROVIDER_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000),
};
