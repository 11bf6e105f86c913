// gRPC handlers of TemplatesService: proto <-> domain, nothing else.
import { invalidParam, isId, missingParam, notFound, type AsyncHandlers } from '@hallmark/kit';
import type { Principal } from '@hallmark/proto/common/v1/common';
import type {
  Template,
  TemplateVariable,
  TemplatesServiceServer,
  TemplateStyling,
  WorkflowCondition,
  WorkflowStep,
  WorkflowTrigger,
} from '@hallmark/proto/notify/v1/templates';
import { GRANTEE, parseLevels } from './domain/access.js';
import { applyPatch, buildTemplate, kindOf, type TemplateInput } from './domain/template.js';
import { parseLocale, type Variable } from './domain/variables.js';
import type { Condition, Step, Trigger } from './domain/workflow.js';
import { renderTemplate } from './render/index.js';
import type { GrantRecord, Scope, TemplateRecord, TemplatesStore } from './store.js';

export function scopeOf(p: Principal | undefined): Scope {
  if (!p?.enterprise_id) throw missingParam('principal');
  if (!p.actor_id) throw missingParam('principal.actor_id');
  return { enterpriseId: p.enterprise_id, livemode: p.livemode, actorId: p.actor_id };
}

/** Ids are checked for shape before any lookup; a malformed id is simply not found. */
export function templateId(id: string): string {
  if (!isId('template', id)) throw notFound('template', id);
  return id;
}

// ── proto → domain input ───────────────────────────────────────────────────────────

const variablesIn = (list: TemplateVariable[]) =>
  list.map((v) => ({ name: v.name, type: v.type, required: v.required, defaultValue: v.default_value }));

const stylingIn = (s: TemplateStyling | undefined): TemplateInput['styling'] =>
  s && { brandColor: s.brand_color, fontSize: s.font_size, fontFamily: s.font_family };

const conditionsIn = (list: WorkflowCondition[]) =>
  list.map((c) => ({ field: c.field, operator: c.operator, value: c.value }));

const triggerIn = (t: WorkflowTrigger | undefined) =>
  t && { event: t.event, conditions: conditionsIn(t.conditions) };

const stepsIn = (list: WorkflowStep[]) =>
  list.map((s) => ({
    id: s.id,
    type: s.type,
    config: s.config,
    onSuccess: s.on_success,
    onFailure: s.on_failure,
  }));

/** Proto repeated fields cannot be absent; an empty one on create means "not given". */
const given = <T>(list: T[]): T[] | undefined => (list.length > 0 ? list : undefined);

// ── domain → proto ────────────────────────────────────────────────────────────────

const variableOut = (v: Variable): TemplateVariable => ({
  name: v.name,
  type: v.type,
  required: v.required,
  default_value: v.defaultValue,
});

const conditionOut = (c: Condition): WorkflowCondition => ({
  field: c.field,
  operator: c.operator,
  value: c.value,
});
const triggerOut = (t: Trigger): WorkflowTrigger => ({
  event: t.event,
  conditions: t.conditions.map(conditionOut),
});
const stepOut = (s: Step): WorkflowStep => ({
  id: s.id,
  type: s.type,
  config: s.config,
  on_success: s.onSuccess,
  on_failure: s.onFailure,
});

export function toProto(t: TemplateRecord): Template {
  const c = t.draft.content;
  return {
    id: t.id,
    name: c.name,
    type: c.type,
    kind: kindOf(c.type),
    format: c.format ?? undefined,
    template: c.template,
    variables: t.draft.variables.map(variableOut),
    styling: {
      brand_color: c.styling.brandColor,
      font_size: c.styling.fontSize,
      font_family: c.styling.fontFamily,
    },
    subject: c.subject,
    body: c.body,
    attachments: (c.attachments ?? []).map((a) => ({ filename: a.filename, template_id: a.templateId })),
    trigger: c.trigger && triggerOut(c.trigger),
    steps: (c.steps ?? []).map(stepOut),
    conditions: (c.conditions ?? []).map(conditionOut),
    version: t.version,
    owner_id: t.ownerId,
    livemode: t.livemode,
    created_at: t.createdAt.toISOString(),
    updated_at: t.updatedAt.toISOString(),
    access: t.access,
  };
}

const accessOut = (templateId: string, a: { ownerId: string; grants: GrantRecord[] }) => ({
  template_id: templateId,
  owner_id: a.ownerId,
  grants: a.grants.map((g) => ({
    user_id: g.userId,
    access: g.access,
    granted_by: g.grantedBy,
    granted_at: g.grantedAt.toISOString(),
  })),
});

const changelogOf = (s: string | undefined, fallback: string): string => {
  if (s === undefined || s.trim() === '') return fallback;
  if (s.length > 1000) throw invalidParam('changelog', 'changelog is longer than 1000 characters.');
  return s;
};

export function createTemplatesHandlers(store: TemplatesStore): AsyncHandlers<TemplatesServiceServer> {
  return {
    async createTemplate(req) {
      const scope = scopeOf(req.principal);
      const draft = buildTemplate({
        name: req.name,
        type: req.type,
        format: req.format,
        template: req.template,
        variables: variablesIn(req.variables),
        styling: stylingIn(req.styling),
        subject: req.subject,
        body: req.body,
        attachments: given(req.attachments.map((a) => ({ filename: a.filename, templateId: a.template_id }))),
        trigger: triggerIn(req.trigger),
        steps: given(stepsIn(req.steps)),
        conditions: given(conditionsIn(req.conditions)),
      });
      return toProto(await store.create(scope, draft, changelogOf(req.changelog, 'Created')));
    },

    async listTemplates(req) {
      const scope = scopeOf(req.principal);
      const page = req.page?.page || 1;
      const limit = req.page?.limit || 20;
      if (page < 1) throw invalidParam('page', 'page starts at 1.');
      if (limit < 1 || limit > 100) throw invalidParam('limit', 'limit is 1 to 100.');
      const { templates, total } = await store.list(scope, {
        page,
        limit,
        type: req.type || undefined,
        format: req.format || undefined,
      });
      return {
        templates: templates.map(toProto),
        pagination: { page, limit, total, total_pages: Math.ceil(total / limit) },
      };
    },

    async getTemplate(req) {
      const scope = scopeOf(req.principal);
      return toProto(await store.getWith(scope, templateId(req.template_id), 'read'));
    },

    async updateTemplate(req) {
      const scope = scopeOf(req.principal);
      const patch: TemplateInput = {
        name: req.name,
        type: req.type,
        format: req.format,
        template: req.template,
        variables: req.variables && variablesIn(req.variables.items),
        styling: stylingIn(req.styling),
        subject: req.subject,
        body: req.body,
        attachments: req.attachments?.items.map((a) => ({ filename: a.filename, templateId: a.template_id })),
        trigger: triggerIn(req.trigger),
        steps: req.steps && stepsIn(req.steps.items),
        conditions: req.conditions && conditionsIn(req.conditions.items),
      };
      const updated = await store.update(scope, templateId(req.template_id), (current) => {
        const { next, changed } = applyPatch(current.draft, patch);
        if (changed.length === 0) return null;
        return { next, changelog: changelogOf(req.changelog, `Updated ${changed.join(', ')}`) };
      });
      return toProto(updated);
    },

    async deleteTemplate(req) {
      const scope = scopeOf(req.principal);
      await store.delete(scope, templateId(req.template_id));
      return { id: req.template_id, deleted: true };
    },

    async listTemplateVersions(req) {
      const scope = scopeOf(req.principal);
      const versions = await store.listVersions(scope, templateId(req.template_id));
      return {
        versions: versions.map((v) => {
          const { name, type, format, styling, ...rest } = v.content;
          return {
            id: v.id,
            template_id: v.templateId,
            version: v.version,
            // Struct: plain JSON (no undefined members).
            template: JSON.parse(JSON.stringify({ name, type, format, styling, ...rest })),
            variables: v.variables.map(variableOut),
            created_at: v.createdAt.toISOString(),
            created_by: v.createdBy,
            changelog: v.changelog,
          };
        }),
      };
    },

    async restoreTemplateVersion(req) {
      const scope = scopeOf(req.principal);
      if (!Number.isInteger(req.version) || req.version < 1)
        throw invalidParam('version', 'version is a positive integer.');
      return toProto(
        await store.restore(scope, templateId(req.template_id), req.version, req.changelog || undefined),
      );
    },

    async listTemplateAccess(req) {
      const scope = scopeOf(req.principal);
      const id = templateId(req.template_id);
      return accessOut(id, await store.listAccess(scope, id));
    },

    async grantTemplateAccess(req) {
      const scope = scopeOf(req.principal);
      const id = templateId(req.template_id);
      if (req.user_ids.length === 0) throw missingParam('userIds');
      if (req.user_ids.length > 100) throw invalidParam('userIds', 'At most 100 users per call.');
      for (const u of req.user_ids)
        if (!GRANTEE.test(u))
          throw invalidParam('userIds', `Invalid user id '${u}': a user_… or apikey_… id.`);
      const levels = parseLevels(req.access, 'permissions', false);
      return accessOut(id, await store.grant(scope, id, [...new Set(req.user_ids)], levels));
    },

    async revokeTemplateAccess(req) {
      const scope = scopeOf(req.principal);
      const id = templateId(req.template_id);
      if (!GRANTEE.test(req.user_id)) throw invalidParam('user_id', 'A user_… or apikey_… id.');
      const levels = parseLevels(req.access, 'permissions', true);
      return accessOut(id, await store.revoke(scope, id, req.user_id, levels));
    },

    async renderTemplate(req) {
      const scope = scopeOf(req.principal);
      const locale = parseLocale(req.locale);
      const t = await store.getWith(scope, templateId(req.template_id), 'read');
      const r = await renderTemplate(t.draft, req.variables, locale);
      return {
        content: r.content,
        content_type: r.contentType,
        filename: r.filename,
        format: r.format,
        subject: r.subject,
      };
    },
  };
}
