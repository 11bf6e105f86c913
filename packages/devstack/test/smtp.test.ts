import { afterAll, describe, expect, it } from '@jest/globals';
import nodemailer from 'nodemailer';
import { startSmtpSink, type SmtpSinkHandle } from '../src/index.js';

let sink: SmtpSinkHandle | undefined;
afterAll(async () => {
  await sink?.stop();
});

describe('startSmtpSink', () => {
  it('receives and parses a message sent with nodemailer to its smtp:// URL', async () => {
    sink = await startSmtpSink();
    expect(sink.url).toMatch(/^smtp:\/\/127\.0\.0\.1:\d+$/);
    const transport = nodemailer.createTransport(sink.url);
    await transport.sendMail({
      from: 'Hallmark <noreply@hallmark.test>',
      to: 'alice@example.test',
      bcc: 'audit@example.test',
      subject: 'Your certificate',
      text: 'Hello Alice, your certificate is ready.',
    });
    transport.close();

    const msg = await sink.waitForMessage((m) => m.subject === 'Your certificate');
    expect(msg.from).toBe('noreply@hallmark.test');
    expect(msg.to).toEqual(['alice@example.test', 'audit@example.test']);
    expect(msg.text.trim()).toBe('Hello Alice, your certificate is ready.');
    expect(msg.headerFrom).toMatch(/Hallmark.*<noreply@hallmark\.test>/);
    expect(msg.raw).toContain('Subject: Your certificate');
    expect(sink.messages).toHaveLength(1);
  });

  it('lists what it received at GET /messages, as the SMS stand-in does (without the raw source)', async () => {
    expect(sink!.messagesUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/messages$/);
    const res = await fetch(sink!.messagesUrl);
    expect(res.status).toBe(200);
    const listed = (await res.json()) as Record<string, unknown>[];
    expect(listed).toEqual([
      expect.objectContaining({
        from: 'noreply@hallmark.test',
        to: ['alice@example.test', 'audit@example.test'],
        subject: 'Your certificate',
        receivedAt: expect.any(String),
      }),
    ]);
    expect(listed[0]).not.toHaveProperty('raw');
    expect((await fetch(sink!.messagesUrl.replace('/messages', '/other'))).status).toBe(404);
  });
});
