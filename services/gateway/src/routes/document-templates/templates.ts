// /api/v1/templates: document, email and workflow templates, their versions, access
// grants and rendering. Scopes per architecture.md: reports.read (list, get, versions,
// access list; render also accepts reports.export), reports.create (create, update,
// delete, restore, grants). Beyond the scope, the notify service enforces the template's
// own access (owner or grant; spec › Authentication 15). Fields are camelCase as the
// spec's template resource shows them.
import type { FastifyInstance } from 'fastify';
import { idParam, principalOf, type RouteDeps } from '../shared.js';
import { pageQuery } from '../bounds.js';
import { presentTemplate, presentVersion } from './present.js';

const TAGS = ['Templates'];
const READ = { auth: 'either' as const, scope: 'reports.read' };
const WRITE = { auth: 'either' as const, scope: 'reports.create' };
const RENDER = { auth: 'either' as const, scope: ['reports.read', 'reports.export'] };

// ── schemas ─────────────────────────────────────────────────────────────────────────

const DOCUMENT_TYPES = ['invoice', 'receipt', 'report', 'contract', 'document'];
const TYPES = [...DOCUMENT_TYPES, 'email', 'workflow'];
const FORMATS = ['pdf', 'html', 'docx'];

const text = (maxLength: number) => ({ type: 'string', maxLength });
const variable = {
  type: 'object',
  required: ['name', 'type'],
  additionalProperties: false,
  properties: {
    name: text(64),
    type: { type: 'string', enum: ['string', 'number', 'date', 'currency'] },
    required: { type: 'boolean' },
    defaultValue: { description: 'Fits the type; currency: {amount (minor units), currency}' },
  },
};
const condition = {
  type: 'object',
  required: ['field', 'operator'],
  additionalProperties: false,
  properties: { field: text(200), operator: text(32), value: {} },
};
const step = {
  type: 'object',
  required: ['id', 'type'],
  additionalProperties: false,
  properties: {
    id: text(64),
    type: { type: 'string', enum: ['action', 'notification', 'approval', 'delay'] },
    config: { type: 'object' },
    onSuccess: { type: ['string', 'null'], maxLength: 64 },
    onFailure: { type: ['string', 'null'], maxLength: 64 },
  },
};
const templateFields = {
  name: { type: 'string', minLength: 1, maxLength: 200 },
  type: { type: 'string', enum: TYPES, description: 'Document types, or email, or workflow' },
  format: { type: 'string', enum: FORMATS },
  template: {
    ...text(100_000),
    description: 'Body with {{variable}} placeholders (html: HTML; pdf/docx: text, # headings)',
  },
  variables: { type: 'array', maxItems: 100, items: variable },
  styling: {
    type: 'object',
    additionalProperties: false,
    properties: {
      brandColor: text(7),
      fontSize: { type: 'number', minimum: 1, maximum: 200 },
      fontFamily: text(100),
    },
  },
  subject: text(998),
  body: text(100_000),
  attachments: {
    type: 'array',
    maxItems: 10,
    items: {
      type: 'object',
      required: ['filename', 'templateId'],
      additionalProperties: false,
      properties: { filename: text(128), templateId: text(64) },
    },
  },
  trigger: {
    type: 'object',
    required: ['event'],
    additionalProperties: false,
    properties: { event: text(128), conditions: { type: 'array', maxItems: 50, items: condition } },
  },
  steps: { type: 'array', maxItems: 100, items: step },
  conditions: { type: 'array', maxItems: 50, items: condition },
  changelog: text(1000),
};

interface VariableBody {
  name: string;
  type: string;
  required?: boolean;
  defaultValue?: unknown;
}
interface ConditionBody {
  field: string;
  operator: string;
  value?: unknown;
}
interface StepBody {
  id: string;
  type: string;
  config?: Record<string, unknown>;
  onSuccess?: string | null;
  onFailure?: string | null;
}
interface TemplateBody {
  name?: string;
  type?: string;
  format?: string;
  template?: string;
  variables?: VariableBody[];
  styling?: { brandColor?: string; fontSize?: number; fontFamily?: string };
  subject?: string;
  body?: string;
  attachments?: { filename: string; templateId: string }[];
  trigger?: { event: string; conditions?: ConditionBody[] };
  steps?: StepBody[];
  conditions?: ConditionBody[];
  changelog?: string;
}

const variablesIn = (list: VariableBody[]) =>
  list.map((v) => ({
    name: v.name,
    type: v.type,
    required: v.required ?? false,
    default_value: v.defaultValue,
  }));
const conditionsIn = (list: ConditionBody[]) =>
  list.map((c) => ({ field: c.field, operator: c.operator, value: c.value }));
const stepsIn = (list: StepBody[]) =>
  list.map((s) => ({
    id: s.id,
    type: s.type,
    config: s.config ?? {},
    on_success: s.onSuccess ?? undefined,
    on_failure: s.onFailure ?? undefined,
  }));
const stylingIn = (s: TemplateBody['styling']) =>
  s && { brand_color: s.brandColor, font_size: s.fontSize, font_family: s.fontFamily };
const triggerIn = (t: TemplateBody['trigger']) =>
  t && { event: t.event, conditions: conditionsIn(t.conditions ?? []) };
const attachmentsIn = (list: NonNullable<TemplateBody['attachments']>) =>
  list.map((a) => ({ filename: a.filename, template_id: a.templateId }));

export default async function documentTemplates(app: FastifyInstance, { clients }: RouteDeps) {
  const templateId = idParam('template_id');
  const api = clients.templates;

  app.get<{ Querystring: { page?: number; limit?: number; type?: string; format?: string } }>(
    '/api/v1/templates',
    {
      config: READ,
      schema: {
        tags: TAGS,
        summary: 'List the templates you can read, newest first',
        querystring: {
          type: 'object',
          additionalProperties: false,
          properties: {
            ...pageQuery,
            type: { type: 'string', enum: TYPES },
            format: { type: 'string', enum: FORMATS },
          },
        },
      },
    },
    async (request) => {
      const q = request.query;
      const res = await api.listTemplates(
        {
          principal: principalOf(request),
          page: { page: q.page ?? 1, limit: q.limit ?? 20 },
          type: q.type ?? '',
          format: q.format ?? '',
          name_actors: true,
        },
        { idempotent: true },
      );
      return { templates: res.templates.map(presentTemplate), pagination: res.pagination };
    },
  );

  app.post<{ Body: TemplateBody }>(
    '/api/v1/templates',
    {
      config: WRITE,
      schema: {
        tags: TAGS,
        summary: 'Create a template (version 1; you are its owner)',
        body: {
          type: 'object',
          required: ['name', 'type'],
          additionalProperties: false,
          properties: templateFields,
        },
      },
    },
    async (request, reply) => {
      const b = request.body;
      const t = await api.createTemplate({
        principal: principalOf(request),
        name: b.name ?? '',
        type: b.type ?? '',
        format: b.format,
        template: b.template,
        variables: variablesIn(b.variables ?? []),
        styling: stylingIn(b.styling),
        subject: b.subject,
        body: b.body,
        attachments: attachmentsIn(b.attachments ?? []),
        trigger: triggerIn(b.trigger),
        steps: stepsIn(b.steps ?? []),
        conditions: conditionsIn(b.conditions ?? []),
        changelog: b.changelog,
      });
      return reply.status(201).send(presentTemplate(t));
    },
  );

  app.get<{ Params: { template_id: string } }>(
    '/api/v1/templates/:template_id',
    { config: READ, schema: { tags: TAGS, summary: 'Get a template', params: templateId } },
    async (request) =>
      presentTemplate(
        await api.getTemplate(
          { principal: principalOf(request), template_id: request.params.template_id },
          { idempotent: true },
        ),
      ),
  );

  app.patch<{ Params: { template_id: string }; Body: TemplateBody }>(
    '/api/v1/templates/:template_id',
    {
      config: WRITE,
      schema: {
        tags: TAGS,
        summary: 'Change fields (a new version; lists replace the whole list)',
        params: templateId,
        body: { type: 'object', minProperties: 1, additionalProperties: false, properties: templateFields },
      },
    },
    async (request) => {
      const b = request.body;
      return presentTemplate(
        await api.updateTemplate({
          principal: principalOf(request),
          template_id: request.params.template_id,
          name: b.name,
          type: b.type,
          format: b.format,
          template: b.template,
          variables: b.variables && { items: variablesIn(b.variables) },
          styling: stylingIn(b.styling),
          subject: b.subject,
          body: b.body,
          attachments: b.attachments && { items: attachmentsIn(b.attachments) },
          trigger: triggerIn(b.trigger),
          steps: b.steps && { items: stepsIn(b.steps) },
          conditions: b.conditions && { items: conditionsIn(b.conditions) },
          changelog: b.changelog,
        }),
      );
    },
  );

  app.delete<{ Params: { template_id: string } }>(
    '/api/v1/templates/:template_id',
    {
      config: WRITE,
      schema: { tags: TAGS, summary: 'Delete a template with its versions and grants', params: templateId },
    },
    async (request) => {
      const res = await api.deleteTemplate({
        principal: principalOf(request),
        template_id: request.params.template_id,
      });
      return { id: res.id, deleted: res.deleted };
    },
  );

  app.get<{ Params: { template_id: string } }>(
    '/api/v1/templates/:template_id/versions',
    { config: READ, schema: { tags: TAGS, summary: 'Version records, newest first', params: templateId } },
    async (request) => {
      const res = await api.listTemplateVersions(
        { principal: principalOf(request), template_id: request.params.template_id },
        { idempotent: true },
      );
      return { versions: res.versions.map(presentVersion) };
    },
  );

  app.post<{ Params: { template_id: string; version: number }; Body: { changelog?: string } | undefined }>(
    '/api/v1/templates/:template_id/versions/:version/restore',
    {
      config: WRITE,
      schema: {
        tags: TAGS,
        summary: 'Make an earlier version current (written as a new version)',
        params: {
          type: 'object',
          required: ['template_id', 'version'],
          additionalProperties: false,
          properties: { template_id: text(64), version: { type: 'integer', minimum: 1, maximum: 1_000_000 } },
        },
        body: {
          type: ['object', 'null'],
          additionalProperties: false,
          properties: { changelog: text(1000) },
        },
      },
    },
    async (request) =>
      presentTemplate(
        await api.restoreTemplateVersion({
          principal: principalOf(request),
          template_id: request.params.template_id,
          version: request.params.version,
          changelog: request.body?.changelog,
        }),
      ),
  );

  app.post<{
    Params: { template_id: string };
    Body: { variables?: Record<string, unknown>; locale?: string } | undefined;
  }>(
    '/api/v1/templates/:template_id/render',
    {
      config: RENDER,
      schema: {
        tags: TAGS,
        summary: "Render with values: the file in the template's format (html, pdf or docx)",
        params: templateId,
        body: {
          type: ['object', 'null'],
          additionalProperties: false,
          properties: {
            variables: { type: 'object', description: 'Values by variable name' },
            locale: {
              type: 'string',
              maxLength: 35,
              description: 'BCP 47 tag for formatting; default en-US',
            },
          },
        },
      },
    },
    async (request, reply) => {
      const r = await api.renderTemplate({
        principal: principalOf(request),
        template_id: request.params.template_id,
        variables: request.body?.variables ?? {},
        locale: request.body?.locale ?? '',
      });
      if (r.format === 'html') {
        // Enterprise-authored markup served from the API origin: sandboxed, no scripts.
        void reply.header(
          'content-security-policy',
          "sandbox; default-src 'none'; style-src 'unsafe-inline'; img-src data: https:",
        );
      }
      const disposition = r.format === 'html' ? 'inline' : 'attachment';
      return reply
        .type(r.content_type)
        .header('content-disposition', `${disposition}; filename="${r.filename}"`)
        .header('x-content-type-options', 'nosniff')
        .send(Buffer.from(r.content));
    },
  );
}
