// Templates and their versions as the API shows them: camelCase fields as the spec's
// template resource, users named by their session `sub` (notify names them, asking keys:
// the `*_display` fields).
import type {
  Template,
  TemplateVariable,
  TemplateVersion,
  WorkflowCondition,
  WorkflowStep,
} from '@hallmark/proto/notify/v1/templates';

const presentVariable = (v: TemplateVariable) => ({
  name: v.name,
  type: v.type,
  required: v.required,
  ...(v.default_value !== undefined && v.default_value !== null ? { defaultValue: v.default_value } : {}),
});
const presentCondition = (c: WorkflowCondition) => ({
  field: c.field,
  operator: c.operator,
  ...(c.value !== undefined && c.value !== null ? { value: c.value } : {}),
});
const presentStep = (s: WorkflowStep) => ({
  id: s.id,
  type: s.type,
  config: s.config ?? {},
  onSuccess: s.on_success ?? null,
  onFailure: s.on_failure ?? null,
});

export function presentTemplate(t: Template) {
  const s = t.styling ?? {};
  const styling = {
    ...(s.brand_color !== undefined ? { brandColor: s.brand_color } : {}),
    ...(s.font_size !== undefined ? { fontSize: s.font_size } : {}),
    ...(s.font_family !== undefined ? { fontFamily: s.font_family } : {}),
  };
  const byKind =
    t.kind === 'document'
      ? { template: t.template }
      : t.kind === 'email'
        ? {
            subject: t.subject,
            body: t.body,
            attachments: t.attachments.map((a) => ({ filename: a.filename, templateId: a.template_id })),
          }
        : {
            trigger: {
              event: t.trigger?.event,
              conditions: (t.trigger?.conditions ?? []).map(presentCondition),
            },
            steps: t.steps.map(presentStep),
            conditions: t.conditions.map(presentCondition),
          };
  return {
    id: t.id,
    name: t.name,
    type: t.type,
    kind: t.kind,
    format: t.format ?? null,
    ...byKind,
    variables: t.variables.map(presentVariable),
    styling,
    version: t.version,
    ownerId: t.owner_display,
    access: t.access,
    livemode: t.livemode,
    createdAt: t.created_at,
    updatedAt: t.updated_at,
  };
}

export const presentVersion = (v: TemplateVersion) => ({
  id: v.id,
  templateId: v.template_id,
  version: v.version,
  template: v.template,
  variables: v.variables.map(presentVariable),
  createdAt: v.created_at,
  createdBy: v.created_by_display,
  changelog: v.changelog,
});
