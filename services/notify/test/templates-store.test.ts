// Templates against the real PostgreSQL: CRUD and scoping, versions on every change,
// restore as a new version, access grants enforced on every operation.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Principal } from '@hallmark/proto/common/v1/common';
import {
  CALL,
  colleague,
  createRequest,
  expectError,
  principal,
  startTemplates,
} from './templates-harness.js';

let t: Awaited<ReturnType<typeof startTemplates>>;
beforeAll(async () => {
  t = await startTemplates();
});
afterAll(() => t.close());

const create = (p: Principal, over: Record<string, unknown> = {}) =>
  t.api.createTemplate(createRequest(p, over), CALL);
const get = (p: Principal, id: string) => t.api.getTemplate({ principal: p, template_id: id }, CALL);
const versions = async (p: Principal, id: string) =>
  (await t.api.listTemplateVersions({ principal: p, template_id: id }, CALL)).versions;
const patch = (p: Principal, id: string, over: Record<string, unknown>) =>
  t.api.updateTemplate({ principal: p, template_id: id, ...over } as any, CALL);

describe('create, get, list', () => {
  it('creates version 1 owned by the caller, with every field back', async () => {
    const p = principal();
    const tpl = await create(p);
    expect(tpl).toMatchObject({
      name: 'Invoice',
      type: 'invoice',
      kind: 'document',
      format: 'html',
      version: 1,
      owner_id: p.actor_id,
      livemode: true,
      access: ['read', 'write', 'delete'],
      styling: { brand_color: '#1A73E8', font_size: 12, font_family: 'Georgia, serif' },
    });
    expect(tpl.id).toMatch(/^tmpl_[0-9A-Za-z]{24}$/);
    expect(tpl.variables[2]).toEqual({
      name: 'due',
      type: 'date',
      required: false,
      default_value: '2025-12-31',
    });
    const [v1] = await versions(p, tpl.id);
    expect(v1).toMatchObject({
      template_id: tpl.id,
      version: 1,
      created_by: p.actor_id,
      changelog: 'Created',
    });
    expect(v1!.id).toMatch(/^tmplv_/);
    expect(v1!.template).toMatchObject({
      name: 'Invoice',
      type: 'invoice',
      format: 'html',
      template: tpl.template,
    });
  });

  it('refuses an undeclared placeholder, naming it, and writes nothing', async () => {
    const p = principal();
    const err = await expectError(
      create(p, { template: 'Hello {{customer}} {{vip_code}}' }),
      'parameter_invalid',
      'template',
    );
    expect(err.message).toContain('{{vip_code}}');
    const { templates } = await t.api.listTemplates({ principal: p, type: '', format: '' }, CALL);
    expect(templates).toEqual([]);
  });

  it('lists newest first with type and format filters, only in its own enterprise and mode', async () => {
    const p = principal();
    const a = await create(p, { name: 'A' });
    const b = await create(p, {
      name: 'B',
      type: 'receipt',
      format: 'pdf',
      template: 'Receipt {{customer}}',
    });
    const c = await create(p, {
      name: 'C',
      type: 'report',
      format: 'docx',
      template: '# Report {{customer}}',
    });
    await create(principal(), { name: 'other enterprise' });
    await create({ ...p, livemode: false }, { name: 'test mode' });
    const list = (q: { type?: string; format?: string }) =>
      t.api.listTemplates({ principal: p, type: q.type ?? '', format: q.format ?? '' }, CALL);
    expect((await list({})).templates.map((x) => x.name)).toEqual(['C', 'B', 'A']);
    expect((await list({})).pagination).toEqual({ page: 1, limit: 20, total: 3, total_pages: 1 });
    expect((await list({ type: 'receipt' })).templates.map((x) => x.id)).toEqual([b.id]);
    expect((await list({ format: 'docx' })).templates.map((x) => x.id)).toEqual([c.id]);
    expect((await list({ type: 'invoice', format: 'html' })).templates.map((x) => x.id)).toEqual([a.id]);
    await expectError(get(principal(), a.id), 'resource_not_found');
    await expectError(get({ ...p, livemode: false }, a.id), 'resource_not_found');
    await expectError(get(p, 'tmpl_nope'), 'resource_not_found');
  });

  it('creates email and workflow templates; refuses a workflow cycle', async () => {
    const p = principal();
    const invoice = await create(p);
    const email = await create(p, {
      name: 'Invoice mail',
      type: 'email',
      format: undefined,
      template: undefined,
      subject: 'Your invoice, {{customer}}',
      body: '<p>Hello {{customer}}, your total is {{total}}.</p>',
      attachments: [{ filename: 'invoice-{{customer}}.html', template_id: invoice.id }],
    });
    expect(email).toMatchObject({
      kind: 'email',
      format: 'html',
      attachments: [{ template_id: invoice.id }],
    });
    await expectError(
      create(p, {
        type: 'email',
        format: undefined,
        template: undefined,
        subject: 's',
        body: 'b',
        attachments: [{ filename: 'x.pdf', template_id: email.id }],
      }),
      'parameter_invalid',
      'attachments[0].templateId',
    );
    const foreign = await create(principal());
    await expectError(
      create(p, {
        type: 'email',
        format: undefined,
        template: undefined,
        subject: 's',
        body: 'b',
        attachments: [{ filename: 'x.pdf', template_id: foreign.id }],
      }),
      'parameter_invalid',
      'attachments[0].templateId',
    );

    const workflow = {
      name: 'Redemption follow-up',
      type: 'workflow',
      format: undefined,
      template: undefined,
      variables: [{ name: 'orderId', type: 'string', required: true }],
      trigger: {
        event: 'voucher.redeemed',
        conditions: [{ field: 'data.amount', operator: 'greater_than', value: 1000 }],
      },
      steps: [
        {
          id: 'approve',
          type: 'approval',
          config: { approvers: ['finance'] },
          on_success: 'notify',
          on_failure: 'wait',
        },
        { id: 'wait', type: 'delay', config: { seconds: 3600 }, on_success: 'notify' },
        { id: 'notify', type: 'notification', config: { message: 'Order {{orderId}} approved' } },
      ],
    };
    const wf = await create(p, workflow);
    expect(wf).toMatchObject({ kind: 'workflow', trigger: { event: 'voucher.redeemed' } });
    expect(wf.format).toBeUndefined();
    expect(wf.steps.map((s) => [s.id, s.on_success, s.on_failure])).toEqual([
      ['approve', 'notify', 'wait'],
      ['wait', 'notify', undefined],
      ['notify', undefined, undefined],
    ]);
    const cyclic = structuredClone(workflow);
    cyclic.steps[2] = { ...cyclic.steps[2]!, on_success: 'approve' } as any;
    const err = await expectError(create(p, cyclic), 'parameter_invalid', 'steps');
    expect(err.message).toContain('approve → notify → approve');
  });
});

describe('versions', () => {
  it('writes a version per change with createdBy and changelog; a no-op patch writes none', async () => {
    const p = principal();
    const tpl = await create(p);
    const v2 = await patch(p, tpl.id, { name: 'Invoice 2025' });
    expect(v2).toMatchObject({ name: 'Invoice 2025', version: 2 });
    const v3 = await patch(p, tpl.id, {
      template: '<h1>Invoice: {{customer}}</h1><p>{{total}}</p>',
      changelog: 'Shorter layout',
    });
    expect(v3.version).toBe(3);
    expect((await patch(p, tpl.id, { name: 'Invoice 2025' })).version).toBe(3);
    const list = await versions(p, tpl.id);
    expect(list.map((v) => [v.version, v.changelog])).toEqual([
      [3, 'Shorter layout'],
      [2, 'Updated name'],
      [1, 'Created'],
    ]);
    expect(list[2]!.template).toMatchObject({ name: 'Invoice' });
  });

  it('refuses an invalid patch without writing a version', async () => {
    const p = principal();
    const tpl = await create(p);
    await expectError(patch(p, tpl.id, { template: 'Hi {{nobody}}' }), 'parameter_invalid', 'template');
    await expectError(patch(p, tpl.id, { type: 'workflow' }), 'parameter_invalid', 'type');
    expect((await get(p, tpl.id)).version).toBe(1);
    expect(await versions(p, tpl.id)).toHaveLength(1);
  });

  it('restores an earlier version as a new version; history is kept', async () => {
    const p = principal();
    const tpl = await create(p);
    await patch(p, tpl.id, {
      name: 'Changed',
      variables: { items: [{ name: 'customer', type: 'string', required: true }] },
      template: 'Only {{customer}}',
    });
    const restored = await t.api.restoreTemplateVersion(
      { principal: p, template_id: tpl.id, version: 1 },
      CALL,
    );
    expect(restored).toMatchObject({ version: 3, name: 'Invoice', template: tpl.template });
    expect(restored.variables).toEqual(tpl.variables);
    const list = await versions(p, tpl.id);
    expect(list.map((v) => [v.version, v.changelog])).toEqual([
      [3, 'Restored version 1'],
      [2, 'Updated name, template, variables'],
      [1, 'Created'],
    ]);
    await expectError(
      t.api.restoreTemplateVersion({ principal: p, template_id: tpl.id, version: 9 }, CALL),
      'resource_not_found',
    );
  });

  it('numbers concurrent changes gap-free (row lock)', async () => {
    const p = principal();
    const tpl = await create(p);
    await Promise.all(Array.from({ length: 12 }, (_, i) => patch(p, tpl.id, { name: `Name ${i}` })));
    const list = await versions(p, tpl.id);
    expect(list.map((v) => v.version)).toEqual(Array.from({ length: 13 }, (_, i) => 13 - i));
    expect((await get(p, tpl.id)).version).toBe(13);
  });
});

describe('access grants', () => {
  it('without a grant a colleague sees nothing: 404 on every operation, absent from lists', async () => {
    const owner = principal();
    const other = colleague(owner);
    const tpl = await create(owner);
    await expectError(get(other, tpl.id), 'resource_not_found');
    await expectError(patch(other, tpl.id, { name: 'x' }), 'resource_not_found');
    await expectError(
      t.api.deleteTemplate({ principal: other, template_id: tpl.id }, CALL),
      'resource_not_found',
    );
    await expectError(
      t.api.renderTemplate({ principal: other, template_id: tpl.id, variables: {}, locale: '' }, CALL),
      'resource_not_found',
    );
    expect((await t.api.listTemplates({ principal: other, type: '', format: '' }, CALL)).templates).toEqual(
      [],
    );
  });

  it('read lets a colleague read but not write (403) or delete (403)', async () => {
    const owner = principal();
    const other = colleague(owner);
    const tpl = await create(owner);
    const access = await t.api.grantTemplateAccess(
      { principal: owner, template_id: tpl.id, user_ids: [other.actor_id], access: ['read'] },
      CALL,
    );
    expect(access).toMatchObject({
      owner_id: owner.actor_id,
      grants: [{ user_id: other.actor_id, access: ['read'] }],
    });
    expect((await get(other, tpl.id)).access).toEqual(['read']);
    expect(
      (await t.api.listTemplates({ principal: other, type: '', format: '' }, CALL)).templates,
    ).toHaveLength(1);
    await expectError(patch(other, tpl.id, { name: 'x' }), 'insufficient_permissions');
    await expectError(
      t.api.deleteTemplate({ principal: other, template_id: tpl.id }, CALL),
      'insufficient_permissions',
    );
    await expectError(
      t.api.restoreTemplateVersion({ principal: other, template_id: tpl.id, version: 1 }, CALL),
      'insufficient_permissions',
    );
    // Only the owner manages access.
    await expectError(
      t.api.grantTemplateAccess(
        { principal: other, template_id: tpl.id, user_ids: [other.actor_id], access: ['write'] },
        CALL,
      ),
      'insufficient_permissions',
    );
  });

  it('write lets a colleague change it (the version names them); delete lets them delete it', async () => {
    const owner = principal();
    const other = colleague(owner);
    const tpl = await create(owner);
    await t.api.grantTemplateAccess(
      { principal: owner, template_id: tpl.id, user_ids: [other.actor_id], access: ['write'] },
      CALL,
    );
    const changed = await patch(other, tpl.id, { name: 'Edited by colleague' });
    expect(changed.access).toEqual(['read', 'write']);
    expect((await versions(owner, tpl.id))[0]).toMatchObject({ version: 2, created_by: other.actor_id });
    await expectError(
      t.api.deleteTemplate({ principal: other, template_id: tpl.id }, CALL),
      'insufficient_permissions',
    );

    // Revoking write keeps read; revoking everything hides it again.
    await t.api.revokeTemplateAccess(
      { principal: owner, template_id: tpl.id, user_id: other.actor_id, access: ['write'] },
      CALL,
    );
    expect((await get(other, tpl.id)).access).toEqual(['read']);
    await t.api.grantTemplateAccess(
      { principal: owner, template_id: tpl.id, user_ids: [other.actor_id], access: ['delete'] },
      CALL,
    );
    const listed = await t.api.listTemplateAccess({ principal: other, template_id: tpl.id }, CALL);
    expect(listed.grants).toEqual([
      expect.objectContaining({
        user_id: other.actor_id,
        access: ['read', 'delete'],
        granted_by: owner.actor_id,
      }),
    ]);
    await t.api.revokeTemplateAccess(
      { principal: owner, template_id: tpl.id, user_id: other.actor_id, access: [] },
      CALL,
    );
    await expectError(get(other, tpl.id), 'resource_not_found');

    await t.api.grantTemplateAccess(
      { principal: owner, template_id: tpl.id, user_ids: [other.actor_id], access: ['delete'] },
      CALL,
    );
    expect(await t.api.deleteTemplate({ principal: other, template_id: tpl.id }, CALL)).toEqual({
      id: tpl.id,
      deleted: true,
    });
    await expectError(get(owner, tpl.id), 'resource_not_found');
    await expectError(
      t.api.deleteTemplate({ principal: owner, template_id: tpl.id }, CALL),
      'resource_not_found',
    );
    const left = await t.pool.query(
      'SELECT count(*)::int AS n FROM template_versions WHERE template_id = $1',
      [tpl.id],
    );
    expect(left.rows[0].n).toBe(0);
  });

  it('refuses grants to the owner, malformed ids and unknown levels; another enterprise cannot grant', async () => {
    const owner = principal();
    const tpl = await create(owner);
    const grant = (p: Principal, user_ids: string[], access: string[]) =>
      t.api.grantTemplateAccess({ principal: p, template_id: tpl.id, user_ids, access }, CALL);
    await expectError(grant(owner, [owner.actor_id], ['read']), 'parameter_invalid', 'userIds');
    await expectError(grant(owner, ['bob'], ['read']), 'parameter_invalid', 'userIds');
    await expectError(
      grant(owner, [colleague(owner).actor_id], ['admin']),
      'parameter_invalid',
      'permissions',
    );
    await expectError(grant(owner, [colleague(owner).actor_id], []), 'parameter_invalid', 'permissions');
    // Another enterprise granting to its own colleague: the template is not found there.
    const stranger = principal();
    await expectError(grant(stranger, [colleague(stranger).actor_id], ['read']), 'resource_not_found');
  });
});
