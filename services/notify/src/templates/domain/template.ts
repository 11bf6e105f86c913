// A template's content by kind, its validation (create and patch share one path), and
// the check that every placeholder is declared. Pure.
import { invalidParam, missingParam } from '@hallmark/kit/errors';
import { isId } from '@hallmark/kit/ids';
import { checkDeclared, stringsIn } from './placeholders.js';
import { parseVariables, type Variable, type VariableInput } from './variables.js';
import {
  parseConditions,
  parseSteps,
  parseTrigger,
  type Condition,
  type ConditionInput,
  type Step,
  type StepInput,
  type Trigger,
  type TriggerInput,
} from './workflow.js';

export const DOCUMENT_TYPES = ['invoice', 'receipt', 'report', 'contract', 'document'] as const;
export const TEMPLATE_TYPES = [...DOCUMENT_TYPES, 'email', 'workflow'] as const;
export type TemplateType = (typeof TEMPLATE_TYPES)[number];
export const FORMATS = ['pdf', 'html', 'docx'] as const;
export type Format = (typeof FORMATS)[number];
export type Kind = 'document' | 'email' | 'workflow';

export const kindOf = (type: TemplateType): Kind =>
  type === 'email' ? 'email' : type === 'workflow' ? 'workflow' : 'document';

export interface Styling {
  brandColor?: string;
  fontSize?: number;
  fontFamily?: string;
}

export interface Attachment {
  filename: string;
  templateId: string;
}

/** Everything a version snapshots besides the variables. */
export interface TemplateContent {
  name: string;
  type: TemplateType;
  format: Format | null;
  styling: Styling;
  template?: string;
  subject?: string;
  body?: string;
  attachments?: Attachment[];
  trigger?: Trigger;
  steps?: Step[];
  conditions?: Condition[];
}

export interface TemplateDraft {
  content: TemplateContent;
  variables: Variable[];
}

/** Loosely typed input: what create sends, or current-merged-with-patch for update. */
export interface TemplateInput {
  name?: string;
  type?: string;
  format?: string;
  template?: string;
  variables?: VariableInput[];
  styling?: { brandColor?: unknown; fontSize?: unknown; fontFamily?: unknown };
  subject?: string;
  body?: string;
  attachments?: { filename?: unknown; templateId?: unknown }[];
  trigger?: TriggerInput;
  steps?: StepInput[];
  conditions?: ConditionInput[];
}

export const MAX_TEXT = 100_000;
const HEX_COLOR = /^#([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/;
const FONT_FAMILY = /^[A-Za-z0-9 ,'-]{1,100}$/;
const FILENAME = /^[A-Za-z0-9 ._(){}-]{1,128}$/;

const KIND_FIELDS: Record<Kind, (keyof TemplateInput)[]> = {
  document: ['format', 'template'],
  email: ['format', 'subject', 'body', 'attachments'],
  workflow: ['trigger', 'steps', 'conditions'],
};
const CONTENT_FIELDS = [
  'format',
  'template',
  'subject',
  'body',
  'attachments',
  'trigger',
  'steps',
  'conditions',
] as const;

function text(value: string | undefined, param: string, max = MAX_TEXT): string {
  if (value === undefined || value.trim() === '') throw missingParam(param);
  if (value.length > max) throw invalidParam(param, `${param} is longer than ${max} characters.`);
  return value;
}

export function parseStyling(input: TemplateInput['styling']): Styling {
  const out: Styling = {};
  if (!input) return out;
  const { brandColor, fontSize, fontFamily } = input;
  if (brandColor !== undefined && brandColor !== null) {
    if (typeof brandColor !== 'string' || !HEX_COLOR.test(brandColor))
      throw invalidParam('styling.brandColor', 'Invalid styling.brandColor: a hex colour such as #1A73E8.');
    out.brandColor = brandColor;
  }
  if (fontSize !== undefined && fontSize !== null) {
    if (typeof fontSize !== 'number' || !(fontSize >= 6 && fontSize <= 72))
      throw invalidParam('styling.fontSize', 'Invalid styling.fontSize: a number of points from 6 to 72.');
    out.fontSize = fontSize;
  }
  if (fontFamily !== undefined && fontFamily !== null) {
    if (typeof fontFamily !== 'string' || !FONT_FAMILY.test(fontFamily))
      throw invalidParam(
        'styling.fontFamily',
        'Invalid styling.fontFamily: letters, digits, spaces, commas, hyphens and single quotes.',
      );
    out.fontFamily = fontFamily;
  }
  return out;
}

function parseAttachments(list: TemplateInput['attachments']): Attachment[] {
  if ((list ?? []).length > 10) throw invalidParam('attachments', 'At most 10 attachments.');
  return (list ?? []).map((a, i) => {
    const p = `attachments[${i}]`;
    if (typeof a.filename !== 'string' || !FILENAME.test(a.filename))
      throw invalidParam(`${p}.filename`, `Invalid ${p}.filename: 1–128 letters, digits, spaces, . _ - ( ).`);
    if (!isId('template', a.templateId))
      throw invalidParam(`${p}.templateId`, `Invalid ${p}.templateId: the id of a document template.`);
    return { filename: a.filename, templateId: a.templateId };
  });
}

/** Validates a whole template (create, or the current one merged with a patch). */
export function buildTemplate(input: TemplateInput): TemplateDraft {
  const name = text(input.name, 'name', 200);
  if (!TEMPLATE_TYPES.includes(input.type as TemplateType))
    throw invalidParam('type', `Invalid type: one of ${TEMPLATE_TYPES.join(', ')}.`);
  const type = input.type as TemplateType;
  const kind = kindOf(type);
  for (const field of CONTENT_FIELDS) {
    if (input[field] !== undefined && !KIND_FIELDS[kind].includes(field))
      throw invalidParam(field, `${field} does not apply to ${kind} templates (type ${type}).`);
  }
  const variables = parseVariables(input.variables);
  const content: TemplateContent = { name, type, format: null, styling: parseStyling(input.styling) };
  if (kind === 'document') {
    if (input.format === undefined) throw missingParam('format');
    if (!FORMATS.includes(input.format as Format))
      throw invalidParam('format', `Invalid format: one of ${FORMATS.join(', ')}.`);
    content.format = input.format as Format;
    content.template = text(input.template, 'template');
  } else if (kind === 'email') {
    if (input.format !== undefined && input.format !== 'html')
      throw invalidParam('format', 'Email templates are html.');
    content.format = 'html';
    content.subject = text(input.subject, 'subject', 998);
    if (/[\r\n]/.test(content.subject)) throw invalidParam('subject', 'The subject is one line.');
    content.body = text(input.body, 'body');
    content.attachments = parseAttachments(input.attachments);
  } else {
    content.trigger = parseTrigger(input.trigger);
    content.steps = parseSteps(input.steps);
    content.conditions = parseConditions(input.conditions, 'conditions');
  }
  checkPlaceholders(content, variables);
  return { content, variables };
}

/** Every placeholder of every text field must name a declared variable. */
export function checkPlaceholders(content: TemplateContent, variables: readonly Variable[]): void {
  const declared = new Set(variables.map((v) => v.name));
  const texts: { path: string; text: string }[] = [];
  if (content.template !== undefined) texts.push({ path: 'template', text: content.template });
  if (content.subject !== undefined) texts.push({ path: 'subject', text: content.subject });
  if (content.body !== undefined) texts.push({ path: 'body', text: content.body });
  content.attachments?.forEach((a, i) =>
    texts.push({ path: `attachments[${i}].filename`, text: a.filename }),
  );
  content.steps?.forEach((s, i) => texts.push(...stringsIn(s.config, `steps[${i}].config`)));
  for (const t of texts) checkDeclared(t.text, t.path, declared);
}

/** The current template as input, so a patch is "current with some fields replaced". */
export function toInput(d: TemplateDraft): TemplateInput {
  const c = d.content;
  const kind = kindOf(c.type);
  const input: TemplateInput = { name: c.name, type: c.type, variables: d.variables, styling: c.styling };
  if (kind !== 'workflow') input.format = c.format ?? undefined;
  if (kind === 'document') input.template = c.template;
  if (kind === 'email')
    Object.assign(input, { subject: c.subject, body: c.body, attachments: c.attachments });
  if (kind === 'workflow')
    Object.assign(input, { trigger: c.trigger, steps: c.steps, conditions: c.conditions });
  return input;
}

/**
 * Applies a patch (fields present replace the current ones). The kind cannot change.
 * Returns the new draft and the names of the fields whose value changed.
 */
export function applyPatch(
  current: TemplateDraft,
  patch: TemplateInput,
): { next: TemplateDraft; changed: string[] } {
  if (patch.type !== undefined && TEMPLATE_TYPES.includes(patch.type as TemplateType)) {
    if (kindOf(patch.type as TemplateType) !== kindOf(current.content.type))
      throw invalidParam(
        'type',
        `A ${kindOf(current.content.type)} template cannot become type ${patch.type}.`,
      );
  }
  const merged: TemplateInput = { ...toInput(current) };
  for (const [k, v] of Object.entries(patch)) if (v !== undefined) (merged as Record<string, unknown>)[k] = v;
  const next = buildTemplate(merged);
  const before = { ...current.content, variables: current.variables } as Record<string, unknown>;
  const after = { ...next.content, variables: next.variables } as Record<string, unknown>;
  const changed = Object.keys(after).filter((k) => canonical(before[k]) !== canonical(after[k]));
  return { next, changed };
}

/** JSON with sorted keys: equality of stored documents regardless of key order. */
export function canonical(value: unknown): string {
  return JSON.stringify(value, (_k, v) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => a.localeCompare(b)))
      : v,
  );
}
