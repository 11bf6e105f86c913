// gRPC handlers of TemplatesService (document templates): proto <-> service calls, nothing else.
import { scopeOf, type AsyncHandlers } from '@hallmark/kit';
import { pageInfo } from '@hallmark/kit/page';
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
import { kindOf, type TemplateInput } from './domain/template.js';
import type { Variable } from './domain/variables.js';
import type { Condition, Step, Trigger } from './domain/workflow.js';
import type { DocumentTemplatesService, Namer, TemplateAccess } from './service.js';
import type { DocumentTemplateRecord, GrantRecord } from './store.js';

/** Templates record who did what (an owner, a grant's subject): a principal names its actor. */
const WITH_ACTOR = { actor: 'required' } as const;

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

/** The template in proto form; with `name`, its owner named as the API shows it. */
export function toProto(t: DocumentTemplateRecord, name?: Namer): Template {
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
    owner_display: name ? name(t.ownerId) : '',
    livemode: t.livemode,
    created_at: t.createdAt.toISOString(),
    updated_at: t.updatedAt.toISOString(),
    access: t.access,
  };
}

const accessOut = (templateId: string, a: { ownerId: string; grants: GrantRecord[] }, name: Namer) => ({
  template_id: templateId,
  owner_id: a.ownerId,
  owner_display: name(a.ownerId),
  grants: a.grants.map((g) => ({
    user_id: g.userId,
    access: g.access,
    granted_by: g.grantedBy,
    granted_at: g.grantedAt.toISOString(),
    user_display: name(g.userId),
    granted_by_display: name(g.grantedBy),
  })),
});

export function createTemplatesHandlers(
  service: DocumentTemplatesService,
): AsyncHandlers<TemplatesServiceServer> {
  /** The template with its owner named (one ask of keys). */
  const named = async (principal: Principal | undefined, t: DocumentTemplateRecord) =>
    toProto(t, await service.namer(principal!, [t.ownerId]));
  /** The access list with every actor named (one ask of keys). */
  const namedAccess = async (principal: Principal | undefined, templateId: string, a: TemplateAccess) =>
    accessOut(
      templateId,
      a,
      await service.namer(principal!, [a.ownerId, ...a.grants.flatMap((g) => [g.userId, g.grantedBy])]),
    );
  return {
    async createTemplate(req) {
      const scope = scopeOf(req.principal, WITH_ACTOR);
      const input: TemplateInput = {
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
      };
      return named(req.principal, await service.create(scope, input, req.changelog));
    },

    async listTemplates(req) {
      const { templates, total, page, limit } = await service.list(scopeOf(req.principal, WITH_ACTOR), {
        page: req.page?.page,
        limit: req.page?.limit,
        type: req.type,
        format: req.format,
      });
      // Named only when asked (the gateway): a service reading for its own use needs no names.
      const name = req.name_actors
        ? await service.namer(
            req.principal!,
            templates.map((t) => t.ownerId),
          )
        : undefined;
      return {
        templates: templates.map((t) => toProto(t, name)),
        pagination: pageInfo({ page, limit }, total),
      };
    },

    async getTemplate(req) {
      return named(req.principal, await service.get(scopeOf(req.principal, WITH_ACTOR), req.template_id));
    },

    async updateTemplate(req) {
      const scope = scopeOf(req.principal, WITH_ACTOR);
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
      return named(req.principal, await service.update(scope, req.template_id, patch, req.changelog));
    },

    async deleteTemplate(req) {
      await service.delete(scopeOf(req.principal, WITH_ACTOR), req.template_id);
      return { id: req.template_id, deleted: true };
    },

    async listTemplateVersions(req) {
      const versions = await service.listVersions(scopeOf(req.principal, WITH_ACTOR), req.template_id);
      const actor = await service.namer(
        req.principal!,
        versions.map((v) => v.createdBy),
      );
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
            created_by_display: actor(v.createdBy),
            changelog: v.changelog,
          };
        }),
      };
    },

    async restoreTemplateVersion(req) {
      const scope = scopeOf(req.principal, WITH_ACTOR);
      return named(req.principal, await service.restore(scope, req.template_id, req.version, req.changelog));
    },

    async listTemplateAccess(req) {
      const access = await service.listAccess(scopeOf(req.principal, WITH_ACTOR), req.template_id);
      return namedAccess(req.principal, req.template_id, access);
    },

    async grantTemplateAccess(req) {
      const scope = scopeOf(req.principal, WITH_ACTOR);
      const access = await service.grant(scope, req.principal!, req.template_id, req.user_ids, req.access);
      return namedAccess(req.principal, req.template_id, access);
    },

    async revokeTemplateAccess(req) {
      const scope = scopeOf(req.principal, WITH_ACTOR);
      const access = await service.revoke(scope, req.principal!, req.template_id, req.user_id, req.access);
      return namedAccess(req.principal, req.template_id, access);
    },

    async renderTemplate(req) {
      const r = await service.render(
        scopeOf(req.principal, WITH_ACTOR),
        req.template_id,
        req.variables,
        req.locale,
      );
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
