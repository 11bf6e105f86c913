// Send: validate, build the content (direct or from a template), take the idempotency
// lease, hand the message to the channel's provider, record the outcome. Nothing about
// the recipient or the content reaches a log line: ids, channel and provider only.
import { Encryptor, HallmarkError, invalidParam, isId, missingParam, sha256Hex } from '@hallmark/kit';
import type { Logger } from '@hallmark/kit';
import { canonical, kindOf } from '../templates/domain/template.js';
import { parseLocale, resolveValues } from '../templates/domain/variables.js';
import { renderTemplate, renderText } from '../templates/render/index.js';
import { fill } from '../templates/domain/placeholders.js';
import type { Scope, DocumentTemplatesStore } from '../templates/store.js';
import type { EmailMessage, EmailSender } from './email.js';
import { normaliseRecipient, recipientHash, type Channel } from './domain/recipients.js';
import { MAX_SMS_LENGTH, type SmsSender } from './sms.js';
import type { MessageRow, MessagesStore } from './store.js';

export interface SendInput {
  channel: string;
  to: string;
  subject?: string;
  body?: string;
  html?: string;
  templateId?: string;
  variables?: Record<string, unknown>;
  locale?: string;
  idempotencyKey: string;
}

export interface SendResult {
  messageId: string;
  channel: Channel;
  provider: string;
  providerMessageId: string;
  status: 'sent';
  replayed: boolean;
  sentAt: Date;
}

export interface MessagingDeps {
  messages: MessagesStore;
  templates: DocumentTemplatesStore;
  encryptor: Encryptor;
  email?: EmailSender;
  sms?: SmsSender;
  emailFrom: string;
  log: Logger;
}

type Content =
  { kind: 'email'; message: Omit<EmailMessage, 'messageId' | 'from' | 'to'> } | { kind: 'sms'; body: string };

const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

export class Messaging {
  constructor(private readonly deps: MessagingDeps) {}

  async send(scope: Scope, input: SendInput): Promise<SendResult> {
    if (input.channel !== 'email' && input.channel !== 'sms')
      throw invalidParam('channel', 'Invalid channel: email or sms.');
    const channel: Channel = input.channel;
    if (!input.idempotencyKey) throw missingParam('idempotency_key');
    if (!IDEMPOTENCY_KEY.test(input.idempotencyKey))
      throw invalidParam('idempotency_key', 'Invalid idempotency_key: 1–255 printable ASCII characters.');
    const to = normaliseRecipient(channel, input.to);
    const locale = parseLocale(input.locale);
    if (channel === 'email' && !this.deps.email)
      throw new HallmarkError('service_unavailable', { message: 'Email is not configured (SMTP_URL).' });
    if (channel === 'sms' && !this.deps.sms)
      throw new HallmarkError('service_unavailable', {
        message: 'SMS is not configured (HALLMARK_SMS_URL).',
      });

    // Content first: bad input is refused before anything is written.
    const content = await this.content(scope, channel, input, locale);
    const requestHash = sha256Hex(
      canonical({
        channel,
        to,
        subject: input.subject,
        body: input.body,
        html: input.html,
        templateId: input.templateId,
        variables: input.variables ?? {},
        locale,
      }),
    );
    const claim = await this.deps.messages.claim({
      enterpriseId: scope.enterpriseId,
      livemode: scope.livemode,
      idempotencyKey: input.idempotencyKey,
      requestHash,
      channel,
      recipientEncrypted: this.deps.encryptor.encrypt(to),
      recipientHash: recipientHash(channel, to),
      templateId: input.templateId ?? null,
    });
    if (claim.kind === 'replay') return result(claim.row, true);

    const id = claim.row.id;
    try {
      const sent =
        content.kind === 'email'
          ? await this.deps.email!.send({ ...content.message, messageId: id, from: this.deps.emailFrom, to })
          : await this.deps.sms!.send(to, content.body, id);
      const row = await this.deps.messages.markSent(id, sent.provider, sent.providerMessageId);
      this.deps.log.info({ message_id: id, channel, provider: sent.provider }, 'message sent');
      return result(row, false);
    } catch (err) {
      const code = err instanceof HallmarkError ? err.code : 'internal_error';
      await this.deps.messages.markFailed(id, code).catch(() => undefined);
      this.deps.log.warn({ message_id: id, channel, code }, 'message not sent');
      throw err;
    }
  }

  private async content(scope: Scope, channel: Channel, input: SendInput, locale: string): Promise<Content> {
    if (input.templateId !== undefined) {
      for (const f of ['subject', 'body', 'html'] as const)
        if (input[f] !== undefined) throw invalidParam(f, `${f} is not allowed with template_id.`);
      return this.fromTemplate(scope, channel, input.templateId, input.variables, locale);
    }
    if (input.variables && Object.keys(input.variables).length > 0)
      throw invalidParam('variables', 'variables need a template_id.');
    if (channel === 'sms') {
      if (input.subject !== undefined || input.html !== undefined)
        throw invalidParam(input.subject !== undefined ? 'subject' : 'html', 'SMS has a body only.');
      if (!input.body) throw missingParam('body');
      return { kind: 'sms', body: smsBody(input.body) };
    }
    if (!input.subject) throw missingParam('subject');
    if (/[\r\n]/.test(input.subject) || input.subject.length > 998)
      throw invalidParam('subject', 'The subject is one line of at most 998 characters.');
    if (!input.body && !input.html) throw missingParam('body');
    return {
      kind: 'email',
      message: {
        subject: input.subject,
        text: input.body ?? '',
        ...(input.html ? { html: input.html } : {}),
      },
    };
  }

  private async fromTemplate(
    scope: Scope,
    channel: Channel,
    templateId: string,
    variables: Record<string, unknown> | undefined,
    locale: string,
  ): Promise<Content> {
    if (!isId('template', templateId))
      throw invalidParam('template_id', `No such template: '${templateId}'.`);
    const t = await this.deps.templates.getWith(scope, templateId, 'read');
    const kind = kindOf(t.draft.content.type);
    if (channel === 'sms') {
      if (kind === 'workflow') throw invalidParam('template_id', 'A workflow template cannot be sent.');
      return { kind: 'sms', body: smsBody(renderText(t.draft, variables, locale)) };
    }
    if (kind !== 'email') throw invalidParam('template_id', 'Email needs an email template (type email).');
    const html = await renderTemplate(t.draft, variables, locale);
    const values = resolveValues(t.draft.variables, variables, locale);
    const attachments = [];
    for (const a of t.draft.content.attachments ?? []) {
      const doc = await this.deps.templates.getWith(scope, a.templateId, 'read');
      // Each attachment gets the values of the variables it declares.
      const own = new Set(doc.draft.variables.map((v) => v.name));
      const subset = Object.fromEntries(Object.entries(variables ?? {}).filter(([k]) => own.has(k)));
      const file = await renderTemplate(doc.draft, subset, locale);
      attachments.push({
        filename: fill(a.filename, (n) => values.get(n) ?? ''),
        content: file.content,
        contentType: file.contentType,
      });
    }
    return {
      kind: 'email',
      message: {
        subject: html.subject!,
        text: renderText(t.draft, variables, locale),
        html: html.content.toString('utf8'),
        attachments,
      },
    };
  }
}

function smsBody(body: string): string {
  if (body.length > MAX_SMS_LENGTH)
    throw invalidParam('body', `An SMS is at most ${MAX_SMS_LENGTH} characters.`);
  if (body.trim() === '') throw missingParam('body');
  return body;
}

const result = (row: MessageRow, replayed: boolean): SendResult => ({
  messageId: row.id,
  channel: row.channel,
  provider: row.provider ?? '',
  providerMessageId: row.provider_message_id ?? '',
  status: 'sent',
  replayed,
  sentAt: row.sent_at!,
});
