// Gift notifications through notify's messaging (MessagingService.Send: e-mail with SMTP
// fallback, SMS over the Twilio-style provider). The content is a built-in default, unless the
// gift's enterprise has its own email template of the purpose (named `gift` for the
// recipient's message, `gift-expired` for the sender's notice): then that template is used,
// with the variables it declares among claimUrl, certificateName, message, expiresAt.
// Idempotency keys derive from the gift and the send number, so a retried step never sends twice
// (notify answers the stored result).
import { HallmarkError, type AsyncClient } from '@hallmark/kit';
import type { Principal } from '@hallmark/proto/common/v1/common';
import type { MessagingServiceClient } from '@hallmark/proto/notify/v1/messaging';
import type { Template, TemplatesServiceClient } from '@hallmark/proto/notify/v1/templates';
import type { GiftRecord } from './domain/gift.js';

export interface GiftMessage {
  claimUrl: string;
  certificateName: string;
  message: string | null;
  expiresAt: Date;
}

export interface NotifierDeps {
  messaging: AsyncClient<MessagingServiceClient>;
  templates: AsyncClient<TemplatesServiceClient>;
}

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

const day = (d: Date) =>
  d
    .toISOString()
    .replace('T', ' ')
    .replace(/:\d\d\.\d+Z$/, ' UTC');

export const principalOf = (g: GiftRecord): Principal => ({
  enterprise_id: g.enterpriseId,
  livemode: g.livemode,
  actor_id: g.creatorId,
  actor_type: g.creatorId.startsWith('user_') ? 'user' : 'api_key',
  scopes: [],
});

export function defaultRecipientEmail(m: GiftMessage) {
  const note = m.message ? `\n\nA message from the sender:\n${m.message}` : '';
  return {
    subject: `A certificate was gifted to you: ${m.certificateName}`.slice(0, 200),
    body:
      `You have been sent the certificate of authenticity "${m.certificateName}".${note}\n\n` +
      `Claim it before ${day(m.expiresAt)}:\n${m.claimUrl}\n\nThe link works once.`,
    html:
      `<p>You have been sent the certificate of authenticity <strong>${escapeHtml(m.certificateName)}</strong>.</p>` +
      (m.message ? `<blockquote>${escapeHtml(m.message)}</blockquote>` : '') +
      `<p>Claim it before ${day(m.expiresAt)}: <a href="${escapeHtml(m.claimUrl)}">${escapeHtml(m.claimUrl)}</a></p>` +
      '<p>The link works once.</p>',
  };
}

/** A resale's claim link for the buyer (template name `resale` replaces it). */
export function defaultResaleEmail(m: GiftMessage) {
  const note = m.message ? `\n\nA message from the seller:\n${m.message}` : '';
  return {
    subject: `A certificate is being transferred to you: ${m.certificateName}`.slice(0, 200),
    body:
      `The owner of the certificate of authenticity "${m.certificateName}" is transferring it to you.${note}\n\n` +
      `Accept it before ${day(m.expiresAt)}:\n${m.claimUrl}\n\nThe link works once. You need no crypto wallet: ` +
      'the certificate is kept for you in a wallet Hallmark holds for your account.',
    html:
      `<p>The owner of the certificate of authenticity <strong>${escapeHtml(m.certificateName)}</strong> is transferring it to you.</p>` +
      (m.message ? `<blockquote>${escapeHtml(m.message)}</blockquote>` : '') +
      `<p>Accept it before ${day(m.expiresAt)}: <a href="${escapeHtml(m.claimUrl)}">${escapeHtml(m.claimUrl)}</a></p>` +
      '<p>The link works once. You need no crypto wallet.</p>',
  };
}

export function defaultSms(m: GiftMessage): string {
  const note = m.message ? ` "${m.message.slice(0, 300)}"` : '';
  return `Hallmark: you were gifted the certificate "${m.certificateName.slice(0, 120)}".${note} Claim it by ${day(m.expiresAt)}: ${m.claimUrl}`;
}

const REFUSALS = new Set(['resource_not_found', 'insufficient_permissions', 'parameter_invalid']);

export class GiftNotifier {
  constructor(private readonly deps: NotifierDeps) {}

  /** Sends the claim link: e-mail always, SMS when a phone was given. Answers the channels used. */
  async notifyRecipient(
    g: GiftRecord,
    to: { email: string; phone: string | null },
    m: GiftMessage,
    sendNo: number,
  ): Promise<string[]> {
    const principal = principalOf(g);
    const resale = g.kind === 'resale';
    const template = await this.template(principal, resale ? 'resale' : 'gift');
    const variables = template ? variablesFor(template, m) : undefined;
    const key = (channel: string) => `gift:${g.id}:${channel}:${sendNo}`;
    const content = template
      ? { template_id: template.id, variables }
      : resale
        ? defaultResaleEmail(m)
        : defaultRecipientEmail(m);
    await this.deps.messaging.send({
      principal,
      channel: 'email',
      to: to.email,
      ...content,
      locale: '',
      idempotency_key: key('email'),
    });
    const used = ['email'];
    if (to.phone) {
      await this.deps.messaging.send({
        principal,
        channel: 'sms',
        to: to.phone,
        ...(template ? { template_id: template.id, variables } : { body: defaultSms(m) }),
        locale: '',
        idempotency_key: key('sms'),
      });
      used.push('sms');
    }
    return used;
  }

  /** Tells the sender (at the e-mail their session proved) that the gift expired unclaimed. */
  async notifySenderExpired(g: GiftRecord, senderEmail: string, certificateName: string): Promise<void> {
    const principal = principalOf(g);
    const template = await this.template(principal, 'gift-expired');
    const what = g.kind === 'resale' ? 'resale' : 'gift';
    const m: GiftMessage = { claimUrl: '', certificateName, message: g.message, expiresAt: g.expiresAt };
    await this.deps.messaging.send({
      principal,
      channel: 'email',
      to: senderEmail,
      ...(template
        ? { template_id: template.id, variables: variablesFor(template, m) }
        : {
            subject: `Your ${what} of ${certificateName} expired unclaimed`.slice(0, 200),
            body:
              `Your ${what} of "${certificateName}" was not claimed before ${day(g.expiresAt)} and has been ` +
              'removed. The certificate stays with you.',
          }),
      locale: '',
      idempotency_key: `gift:${g.id}:expired`,
    });
  }

  /** The enterprise's own email template of this purpose, if the sender can read one. */
  private async template(principal: Principal, name: string): Promise<Template | null> {
    try {
      const { templates } = await this.deps.templates.listTemplates(
        { principal, page: { page: 1, limit: 100 }, type: 'email', format: '' },
        { idempotent: true },
      );
      return templates.find((t) => t.name.trim().toLowerCase() === name) ?? null;
    } catch (err) {
      // No readable templates (e.g. an API key without grants): the built-in default.
      if (err instanceof HallmarkError && REFUSALS.has(err.code)) return null;
      throw err;
    }
  }
}

function variablesFor(t: Template, m: GiftMessage): Record<string, unknown> {
  const offered: Record<string, unknown> = {
    claimUrl: m.claimUrl,
    certificateName: m.certificateName,
    message: m.message ?? '',
    expiresAt: m.expiresAt.toISOString(),
  };
  const out: Record<string, unknown> = {};
  for (const v of t.variables) if (v.name in offered) out[v.name] = offered[v.name];
  return out;
}
