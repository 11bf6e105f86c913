// Templates through the real gateway and notify service: create, list and filter, get,
// patch (versions), versions and restore, access grants between users of one enterprise,
// render to html, pdf and docx, and the 400s that name the offending variable.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { newId } from '@hallmark/kit';
import { inflateRawSync } from 'node:zlib';
import { startTestStack, type TestStack } from '../src/index.js';
import { createKey } from '../src/keys.js';

let stack: TestStack;
let ent: string;
let owner: string;

beforeAll(async () => {
  stack = await startTestStack();
  ent = newId('enterprise');
  owner = await stack.token({ ent, sub: 'tmpl-owner' });
}, 120_000);

afterAll(async () => {
  await stack?.close();
}, 60_000);

const invoiceBody = {
  name: 'Invoice',
  type: 'invoice',
  format: 'html',
  template: '<h1>Invoice for {{customer}}</h1><p>Total {{total}}, due {{due}}</p>',
  variables: [
    { name: 'customer', type: 'string', required: true },
    { name: 'total', type: 'currency', required: true },
    { name: 'due', type: 'date', required: false, defaultValue: '2025-12-31' },
  ],
  styling: { brandColor: '#1A73E8', fontSize: 12, fontFamily: 'Georgia, serif' },
};

const values = { customer: 'Ada <Lovelace>', total: { amount: 123456, currency: 'USD' } };

/** One file of a zip archive, read through its central directory (stored or deflated). */
function unzipEntry(zip: Buffer, name: string): string {
  const eocd = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  if (eocd < 0) throw new Error('not a zip archive');
  let at = zip.readUInt32LE(eocd + 16);
  for (let i = 0; i < zip.readUInt16LE(eocd + 10); i++) {
    const method = zip.readUInt16LE(at + 10);
    const size = zip.readUInt32LE(at + 20);
    const nameLen = zip.readUInt16LE(at + 28);
    const skip = nameLen + zip.readUInt16LE(at + 30) + zip.readUInt16LE(at + 32);
    const local = zip.readUInt32LE(at + 42);
    if (zip.toString('utf8', at + 46, at + 46 + nameLen) === name) {
      const start = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
      const data = zip.subarray(start, start + size);
      return (method === 8 ? inflateRawSync(data) : data).toString('utf8');
    }
    at += 46 + skip;
  }
  throw new Error(`${name} is not in the archive`);
}

async function render(auth: string, id: string, body: unknown) {
  const res = await fetch(`${stack.gatewayUrl}/api/v1/templates/${id}/render`, {
    method: 'POST',
    headers: { authorization: `Bearer ${auth}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
}

describe('templates through the gateway', () => {
  it('create, list with filters, get, patch, versions, restore, render, delete', async () => {
    const created = await stack.call('POST', '/api/v1/templates', { auth: owner, body: invoiceBody });
    expect(created.status).toBe(201);
    const tpl = created.body;
    expect(tpl).toMatchObject({
      name: 'Invoice',
      type: 'invoice',
      kind: 'document',
      format: 'html',
      template: invoiceBody.template,
      variables: invoiceBody.variables,
      styling: invoiceBody.styling,
      version: 1,
      access: ['read', 'write', 'delete'],
      livemode: true,
    });
    expect(tpl.id).toMatch(/^tmpl_/);

    const pdf = await stack.call('POST', '/api/v1/templates', {
      auth: owner,
      body: {
        ...invoiceBody,
        name: 'Receipt PDF',
        type: 'receipt',
        format: 'pdf',
        template: '# Receipt {{customer}}\n\nPaid {{total}}',
      },
    });
    const docx = await stack.call('POST', '/api/v1/templates', {
      auth: owner,
      body: {
        ...invoiceBody,
        name: 'Contract',
        type: 'contract',
        format: 'docx',
        template: '# Contract with {{customer}}\n\nFee: {{total}}',
      },
    });
    expect([pdf.status, docx.status]).toEqual([201, 201]);

    const all = await stack.call('GET', '/api/v1/templates', { auth: owner });
    expect(all.status).toBe(200);
    expect(all.body.templates.map((t: any) => t.name)).toEqual(['Contract', 'Receipt PDF', 'Invoice']);
    expect(all.body.pagination).toMatchObject({ page: 1, limit: 20, total: 3 });
    const receipts = await stack.call('GET', '/api/v1/templates?type=receipt', { auth: owner });
    expect(receipts.body.templates.map((t: any) => t.id)).toEqual([pdf.body.id]);
    const docxs = await stack.call('GET', '/api/v1/templates?format=docx', { auth: owner });
    expect(docxs.body.templates.map((t: any) => t.id)).toEqual([docx.body.id]);
    const badFilter = await stack.call('GET', '/api/v1/templates?format=odt', { auth: owner });
    expect(badFilter.status).toBe(400);
    expect(badFilter.body.error).toMatchObject({ code: 'parameter_invalid', param: 'format' });

    const got = await stack.call('GET', `/api/v1/templates/${tpl.id}`, { auth: owner });
    expect(got.body).toEqual(tpl);

    const patched = await stack.call('PATCH', `/api/v1/templates/${tpl.id}`, {
      auth: owner,
      body: { name: 'Invoice 2025', template: '<h1>{{customer}}</h1><p>{{total}}</p>', changelog: 'Simpler' },
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ name: 'Invoice 2025', version: 2 });

    const versions = await stack.call('GET', `/api/v1/templates/${tpl.id}/versions`, { auth: owner });
    expect(versions.status).toBe(200);
    expect(versions.body.versions.map((v: any) => [v.version, v.changelog])).toEqual([
      [2, 'Simpler'],
      [1, 'Created'],
    ]);
    expect(versions.body.versions[1]).toMatchObject({
      templateId: tpl.id,
      template: { name: 'Invoice', template: invoiceBody.template },
      createdBy: 'tmpl-owner' /* the session's sub */,
      createdAt: expect.any(String),
    });

    const restored = await stack.call('POST', `/api/v1/templates/${tpl.id}/versions/1/restore`, {
      auth: owner,
    });
    expect(restored.status).toBe(200);
    expect(restored.body).toMatchObject({ name: 'Invoice', version: 3, template: invoiceBody.template });

    // html: escaped, typed and formatted values
    const html = await render(owner, tpl.id, { variables: values });
    expect(html.status).toBe(200);
    expect(html.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(html.headers.get('content-security-policy')).toContain('sandbox');
    expect(html.bytes.toString('utf8')).toContain(
      '<h1>Invoice for Ada &lt;Lovelace&gt;</h1><p>Total $1,234.56, due December 31, 2025</p>',
    );

    const pdfOut = await render(owner, pdf.body.id, { variables: values });
    expect(pdfOut.status).toBe(200);
    expect(pdfOut.headers.get('content-type')).toBe('application/pdf');
    expect(pdfOut.headers.get('content-disposition')).toBe('attachment; filename="Receipt-PDF.pdf"');
    expect(pdfOut.bytes.subarray(0, 5).toString('latin1')).toBe('%PDF-');

    const docxOut = await render(owner, docx.body.id, { variables: values, locale: 'de-DE' });
    expect(docxOut.status).toBe(200);
    expect(docxOut.headers.get('content-type')).toBe(
      'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
    );
    const xml = unzipEntry(docxOut.bytes, 'word/document.xml');
    expect(xml).toContain('Contract with Ada &lt;Lovelace&gt;');
    expect(xml).toContain('Fee: 1.234,56\u00a0$');

    // 400 naming the missing variable
    const missing = await stack.call('POST', `/api/v1/templates/${tpl.id}/render`, {
      auth: owner,
      body: { variables: { customer: 'Ada' } },
    });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toMatchObject({
      type: 'invalid_request_error',
      code: 'parameter_missing',
      param: 'variables.total',
      message: 'Missing required variable: total.',
    });

    const del = await stack.call('DELETE', `/api/v1/templates/${tpl.id}`, { auth: owner });
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ id: tpl.id, deleted: true });
    expect((await stack.call('GET', `/api/v1/templates/${tpl.id}`, { auth: owner })).status).toBe(404);
    expect((await stack.call('DELETE', `/api/v1/templates/${tpl.id}`, { auth: owner })).status).toBe(404);
  });

  it('refuses an undeclared placeholder (400 naming it), unknown fields, and a workflow cycle', async () => {
    const undeclared = await stack.call('POST', '/api/v1/templates', {
      auth: owner,
      body: { ...invoiceBody, template: 'Dear {{customer}}, code {{promo_code}}' },
    });
    expect(undeclared.status).toBe(400);
    expect(undeclared.body.error).toMatchObject({ code: 'parameter_invalid', param: 'template' });
    expect(undeclared.body.error.message).toContain('{{promo_code}}');

    const unknown = await stack.call('POST', '/api/v1/templates', {
      auth: owner,
      body: { ...invoiceBody, colour: 'red' },
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toMatchObject({ code: 'parameter_unknown', param: 'colour' });

    const workflow = {
      name: 'Approval flow',
      type: 'workflow',
      trigger: {
        event: 'voucher.redeemed',
        conditions: [{ field: 'data.amount', operator: 'greater_than', value: 100 }],
      },
      steps: [
        { id: 'approve', type: 'approval', onSuccess: 'notify', onFailure: 'notify' },
        { id: 'notify', type: 'notification', config: { channel: 'email' }, onSuccess: 'approve' },
      ],
    };
    const cyclic = await stack.call('POST', '/api/v1/templates', { auth: owner, body: workflow });
    expect(cyclic.status).toBe(400);
    expect(cyclic.body.error).toMatchObject({ code: 'parameter_invalid', param: 'steps' });
    expect(cyclic.body.error.message).toContain('approve → notify → approve');
    workflow.steps[1] = { id: 'notify', type: 'notification', config: { channel: 'email' } } as any;
    const ok = await stack.call('POST', '/api/v1/templates', { auth: owner, body: workflow });
    expect(ok.status).toBe(201);
    expect(ok.body).toMatchObject({
      kind: 'workflow',
      format: null,
      steps: [
        { id: 'approve', onSuccess: 'notify' },
        { id: 'notify', onSuccess: null },
      ],
    });
  });

  it('access: another user of the enterprise needs a grant (404 without, 403 for writes with read only)', async () => {
    const tpl = (await stack.call('POST', '/api/v1/templates', { auth: owner, body: invoiceBody })).body;
    const colleague = await stack.token({ ent, sub: 'tmpl-colleague', role: 'member' });
    expect((await stack.call('GET', `/api/v1/templates/${tpl.id}`, { auth: colleague })).status).toBe(404);

    // A user's id in the API is their session sub.
    const colleagueId = 'tmpl-colleague';
    const grant = await stack.call('POST', `/api/v1/templates/${tpl.id}/access`, {
      auth: owner,
      body: { userIds: [colleagueId], permissions: ['read'] },
    });
    expect(grant.status).toBe(200);
    expect(grant.body).toMatchObject({
      templateId: tpl.id,
      ownerId: 'tmpl-owner',
      grants: [{ userId: colleagueId, access: ['read'], grantedBy: 'tmpl-owner' }],
    });

    expect((await stack.call('GET', `/api/v1/templates/${tpl.id}`, { auth: colleague })).body.access).toEqual(
      ['read'],
    );
    const write = await stack.call('PATCH', `/api/v1/templates/${tpl.id}`, {
      auth: colleague,
      body: { name: 'Mine now' },
    });
    expect(write.status).toBe(403);
    expect(write.body.error).toMatchObject({ type: 'permission_error', code: 'insufficient_permissions' });
    expect((await stack.call('DELETE', `/api/v1/templates/${tpl.id}`, { auth: colleague })).status).toBe(403);

    const revoke = await stack.call('DELETE', `/api/v1/templates/${tpl.id}/access/${colleagueId}`, {
      auth: owner,
    });
    expect(revoke.body.grants).toEqual([]);
    expect((await stack.call('GET', `/api/v1/templates/${tpl.id}`, { auth: colleague })).status).toBe(404);

    // Another enterprise never sees it.
    const stranger = await stack.token();
    expect((await stack.call('GET', `/api/v1/templates/${tpl.id}`, { auth: stranger })).status).toBe(404);
  });

  it('scopes: reports.read reads but cannot create; test keys see only test-mode templates', async () => {
    const reader = await createKey(stack, owner, { name: 'reader', permissions: ['reports.read'] });
    const refused = await stack.call('POST', '/api/v1/templates', { auth: reader.key, body: invoiceBody });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({
      code: 'insufficient_permissions',
      required_permission: 'reports.create',
    });
    expect((await stack.call('GET', '/api/v1/templates', { auth: reader.key })).status).toBe(200);

    const test = await createKey(stack, owner, { name: 'test', type: 'test', permissions: ['reports.*'] });
    const made = await stack.call('POST', '/api/v1/templates', {
      auth: test.key,
      body: { ...invoiceBody, name: 'Test mode' },
    });
    expect(made.status).toBe(201);
    expect(made.body.livemode).toBe(false);
    const listed = await stack.call('GET', '/api/v1/templates', { auth: test.key });
    expect(listed.body.templates.map((t: any) => t.name)).toEqual(['Test mode']);
  });
});
