// Who may call the template endpoints, and the request fields create and update share.
// Scopes per architecture.md: reports.read (list, get, versions, access list; render also
// accepts reports.export), reports.create (create, update, delete, restore, grants). Beyond the
// scope, the notify service enforces the template's own access (owner or grant; spec ›
// Authentication 15). Fields are camelCase as the spec's template resource shows them.
import type { Access } from '../../endpoint/define.js';
import { bool, closed, list, nullable, oneOf, str, Type, type Static } from '../../endpoint/schema.js';

export const TAGS = ['Templates'];
export const READ: Access = { auth: 'either', scope: 'reports.read' };
export const WRITE: Access = { auth: 'either', scope: 'reports.create' };
export const RENDER: Access = { auth: 'either', scope: ['reports.read', 'reports.export'] };

const DOCUMENT_TYPES = ['invoice', 'receipt', 'report', 'contract', 'document'];
export const TYPES = [...DOCUMENT_TYPES, 'email', 'workflow'];
export const FORMATS = ['pdf', 'html', 'docx'];

const variable = closed({
  name: str(64),
  type: oneOf(['string', 'number', 'date', 'currency']),
  required: Type.Optional(bool),
  defaultValue: Type.Optional(
    Type.Unknown({ description: 'Fits the type; currency: {amount (minor units), currency}' }),
  ),
});
const condition = closed({ field: str(200), operator: str(32), value: Type.Optional(Type.Unknown()) });
const step = closed({
  id: str(64),
  type: oneOf(['action', 'notification', 'approval', 'delay']),
  config: Type.Optional(Type.Unsafe<Record<string, unknown>>({ type: 'object' })),
  onSuccess: Type.Optional(nullable(str(64))),
  onFailure: Type.Optional(nullable(str(64))),
});

/** Every field of a template body: create requires name and type, update any one. */
export const templateFields = {
  name: Type.String({ minLength: 1, maxLength: 200 }),
  type: oneOf(TYPES, 'Document types, or email, or workflow'),
  format: Type.Optional(oneOf(FORMATS)),
  template: Type.Optional(
    str(100_000, 'Body with {{variable}} placeholders (html: HTML; pdf/docx: text, # headings)'),
  ),
  variables: Type.Optional(list(variable, 100)),
  styling: Type.Optional(
    closed({
      brandColor: Type.Optional(str(7)),
      fontSize: Type.Optional(Type.Number({ minimum: 1, maximum: 200 })),
      fontFamily: Type.Optional(str(100)),
    }),
  ),
  subject: Type.Optional(str(998)),
  body: Type.Optional(str(100_000)),
  attachments: Type.Optional(list(closed({ filename: str(128), templateId: str(64) }), 10)),
  trigger: Type.Optional(closed({ event: str(128), conditions: Type.Optional(list(condition, 50)) })),
  steps: Type.Optional(list(step, 100)),
  conditions: Type.Optional(list(condition, 50)),
  changelog: Type.Optional(str(1000)),
};

type VariableBody = Static<typeof variable>;
type ConditionBody = Static<typeof condition>;
type StepBody = Static<typeof step>;
type Styling = Static<typeof templateFields.styling>;
type Trigger = Static<typeof templateFields.trigger>;
type AttachmentBody = { filename: string; templateId: string };

export const variablesIn = (items: VariableBody[]) =>
  items.map((v) => ({
    name: v.name,
    type: v.type,
    required: v.required ?? false,
    default_value: v.defaultValue,
  }));
export const conditionsIn = (items: ConditionBody[]) =>
  items.map((c) => ({ field: c.field, operator: c.operator, value: c.value }));
export const stepsIn = (items: StepBody[]) =>
  items.map((s) => ({
    id: s.id,
    type: s.type,
    config: s.config ?? {},
    on_success: s.onSuccess ?? undefined,
    on_failure: s.onFailure ?? undefined,
  }));
export const stylingIn = (s: Styling | undefined) =>
  s && { brand_color: s.brandColor, font_size: s.fontSize, font_family: s.fontFamily };
export const triggerIn = (t: Trigger | undefined) =>
  t && { event: t.event, conditions: conditionsIn(t.conditions ?? []) };
export const attachmentsIn = (items: AttachmentBody[]) =>
  items.map((a) => ({ filename: a.filename, template_id: a.templateId }));
