// Rendering: html (values escaped, typed formatting, styling), pdf (pdfkit), docx (a zip
// whose word/document.xml holds the rendered text), email subject; a missing required
// variable is a 400 naming it. The last test crosses a real gRPC server and client, so
// the bytes and the typed error survive the wire.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  bind,
  createGrpcClient,
  createLogger,
  HallmarkError,
  startGrpcServer,
  type GrpcClient,
  type RunningGrpcServer,
} from '@hallmark/kit';
import {
  TemplatesServiceClient,
  TemplatesServiceService,
  type TemplatesServiceServer,
} from '@hallmark/proto/notify/v1/templates';
import JSZip from 'jszip';
import { inflateSync } from 'node:zlib';
import { buildTemplate, type TemplateInput } from '../src/templates/domain/template.js';
import { renderTemplate, renderText } from '../src/templates/render/index.js';
import { CALL, createRequest, expectError, principal, startTemplates } from './templates-harness.js';

const invoice = (format: string, template: string, over: TemplateInput = {}) =>
  buildTemplate({
    name: 'Invoice ACME #42',
    type: 'invoice',
    format,
    template,
    variables: [
      { name: 'customer', type: 'string', required: true },
      { name: 'total', type: 'currency', required: true },
      { name: 'due', type: 'date', required: false, defaultValue: '2025-12-31' },
      { name: 'items', type: 'number' },
    ],
    styling: { brandColor: '#1A73E8', fontSize: 12, fontFamily: 'Georgia, serif' },
    ...over,
  });

/** The text a PDF shows: each content stream inflated, the hex strings of its TJ arrays decoded. */
function pdfText(pdf: Buffer): string {
  const out: string[] = [];
  const raw = pdf.toString('latin1');
  for (const m of raw.matchAll(/\/FlateDecode\s*>>\s*stream\r?\n/g)) {
    const start = m.index + m[0].length;
    const end = raw.indexOf('endstream', start);
    const content = inflateSync(pdf.subarray(start, end)).toString('latin1');
    for (const tj of content.matchAll(/\[(.*?)\] TJ/g))
      out.push(
        [...tj[1]!.matchAll(/<([0-9a-f]*)>/gi)]
          .map((h) => Buffer.from(h[1]!, 'hex').toString('latin1'))
          .join(''),
      );
  }
  return out.join('\n');
}

const VALUES = { customer: 'Ada <Lovelace> & "Co"', total: { amount: 123456, currency: 'USD' }, items: 1234 };

describe('html', () => {
  it('escapes values, formats them by type, applies styling', async () => {
    const r = await renderTemplate(
      invoice(
        'html',
        '<h1>Invoice for {{customer}}</h1><p>Total {{total}}, due {{due}}, {{items}} items</p>',
      ),
      VALUES,
      'en-US',
    );
    expect(r.contentType).toBe('text/html; charset=utf-8');
    expect(r.filename).toBe('Invoice-ACME-42.html');
    const html = r.content.toString('utf8');
    expect(html).toContain('<h1>Invoice for Ada &lt;Lovelace&gt; &amp; &quot;Co&quot;</h1>');
    expect(html).not.toContain('<Lovelace>');
    expect(html).toContain('Total $1,234.56, due December 31, 2025, 1,234 items');
    expect(html).toContain('font-family:Georgia, serif');
    expect(html).toContain('color:#1A73E8');
    expect(html).toContain('<title>Invoice ACME #42</title>');
  });

  it('formats per locale', async () => {
    const r = await renderTemplate(invoice('html', '{{total}} {{due}} {{items}}'), VALUES, 'de-DE');
    expect(r.content.toString('utf8')).toContain('1.234,56\u00a0$ 31. Dezember 2025 1.234');
  });

  it('a missing required variable is parameter_missing naming it; a wrong type names it too', async () => {
    const t = invoice('pdf', 'For {{customer}}: {{total}}');
    const missing = await expectError(
      renderTemplate(t, { customer: 'Ada' }, 'en-US'),
      'parameter_missing',
      'variables.total',
    );
    expect(missing.message).toBe('Missing required variable: total.');
    await expectError(
      renderTemplate(t, { customer: 'Ada', total: 12.5 }, 'en-US'),
      'parameter_invalid',
      'variables.total',
    );
  });
});

describe('pdf', () => {
  it('is a PDF document with the template name as its title', async () => {
    const r = await renderTemplate(
      invoice(
        'pdf',
        '# Invoice for {{customer}}\n\nTotal: {{total}}\nDue: {{due}}\n\n## Thanks\nSee you soon.',
      ),
      VALUES,
      'en-US',
    );
    expect(r.contentType).toBe('application/pdf');
    expect(r.filename).toBe('Invoice-ACME-42.pdf');
    expect(r.content.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    const text = r.content.toString('latin1');
    expect(text).toMatch(/\/Title \d+ 0 R/);
    expect(text).toContain('(Invoice ACME #42)');
    expect(text.trimEnd().endsWith('%%EOF')).toBe(true);
    expect(text).toContain('/Times-Roman'); // serif family → the standard Times font
    const shown = pdfText(r.content);
    expect(shown).toContain('Invoice for Ada <Lovelace> & "Co"');
    expect(shown).toContain('Total: $1,234.56');
    expect(shown).toContain('Due: December 31, 2025');
  });
});

describe('docx', () => {
  it('is a zip holding word/document.xml with the rendered, formatted text', async () => {
    const r = await renderTemplate(
      invoice('docx', '# Invoice for {{customer}}\n\nTotal: {{total}}\nDue: {{due}}'),
      VALUES,
      'en-US',
    );
    expect(r.contentType).toBe('application/vnd.openxmlformats-officedocument.wordprocessingml.document');
    expect(r.content.subarray(0, 2).toString('latin1')).toBe('PK');
    const zip = await JSZip.loadAsync(r.content);
    const xml = await zip.file('word/document.xml')!.async('string');
    expect(xml).toContain('Invoice for Ada &lt;Lovelace&gt; &amp; &quot;Co&quot;');
    expect(xml).toContain('Total: $1,234.56');
    expect(xml).toContain('Due: December 31, 2025');
    expect(xml).toContain('w:color w:val="1A73E8"');
    expect(xml).toContain('Georgia');
  });
});

describe('email and workflow', () => {
  const email = buildTemplate({
    name: 'Receipt mail',
    type: 'email',
    subject: 'Receipt for {{customer}}',
    body: '<p>Hello {{customer}},</p><p>you paid {{total}}.</p>',
    variables: [
      { name: 'customer', type: 'string', required: true },
      { name: 'total', type: 'currency', required: true },
    ],
  });

  it('renders the body as html and the subject as text (not escaped)', async () => {
    const r = await renderTemplate(
      email,
      { customer: 'Tom & Jerry', total: { amount: 500, currency: 'EUR' } },
      'en-US',
    );
    expect(r.subject).toBe('Receipt for Tom & Jerry');
    expect(r.content.toString('utf8')).toContain('<p>Hello Tom &amp; Jerry,</p><p>you paid €5.00.</p>');
    expect(
      renderText(email, { customer: 'Tom & Jerry', total: { amount: 500, currency: 'EUR' } }, 'en-US'),
    ).toBe('Hello Tom & Jerry,\nyou paid €5.00.');
  });

  it('refuses to render a workflow', async () => {
    const wf = buildTemplate({
      name: 'W',
      type: 'workflow',
      trigger: { event: 'voucher.redeemed' },
      steps: [{ id: 'a', type: 'action' }],
    });
    await expectError(renderTemplate(wf, {}, 'en-US'), 'parameter_invalid', 'template_id');
  });
});

describe('RenderTemplate over gRPC', () => {
  let t: Awaited<ReturnType<typeof startTemplates>>;
  let server: RunningGrpcServer;
  let client: GrpcClient<TemplatesServiceClient>;

  beforeAll(async () => {
    t = await startTemplates();
    server = await startGrpcServer({
      name: 'templates-test',
      address: '127.0.0.1:0',
      services: [bind<TemplatesServiceServer>(TemplatesServiceService, t.api)],
      log: createLogger('templates-test', 'silent'),
    });
    client = createGrpcClient(TemplatesServiceClient, `127.0.0.1:${server.port}`);
  });
  afterAll(async () => {
    client.close();
    await server.shutdown(1000);
    await t.close();
  });

  it('returns the bytes and content type; a missing variable arrives as the same typed error', async () => {
    const p = principal();
    const tpl = await client.api.createTemplate(
      createRequest(p, { format: 'docx', template: '# {{customer}}\n\n{{total}}' }),
    );
    const r = await client.api.renderTemplate({
      principal: p,
      template_id: tpl.id,
      variables: { customer: 'Grace', total: { amount: 4200, currency: 'GBP' } },
      locale: 'en-GB',
    });
    expect(r.content_type).toBe('application/vnd.openxmlformats-officedocument.wordprocessingml.document');
    expect(r.filename).toBe('Invoice.docx');
    const xml = await (
      await JSZip.loadAsync(Buffer.from(r.content))
    )
      .file('word/document.xml')!
      .async('string');
    expect(xml).toContain('£42.00');
    const err = await client.api
      .renderTemplate({
        principal: p,
        template_id: tpl.id,
        variables: { total: { amount: 1, currency: 'GBP' } },
        locale: '',
      })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HallmarkError);
    expect(err).toMatchObject({ code: 'parameter_missing', param: 'variables.customer', httpStatus: 400 });
    void CALL;
  });
});
