// /api/v1/templates: document, email and workflow templates: list, create, get, update and
// delete. Versions and rendering are in versions.ts, access grants in access.ts.
import { defineEndpoint } from '../../endpoint/define.js';
import { bool, closed, idParams, list, oneOf, str, Type } from '../../endpoint/schema.js';
import { pageQuery } from '../bounds.js';
import { Pagination, presentPagination } from '../pagination.js';
import { principalOf } from '../shared.js';
import {
  attachmentsIn,
  conditionsIn,
  FORMATS,
  READ,
  stepsIn,
  stylingIn,
  TAGS,
  templateFields,
  triggerIn,
  TYPES,
  variablesIn,
  WRITE,
} from './fields.js';
import { presentTemplate } from './present.js';
import { Template } from './template.js';

export const templateParams = idParams('template_id');

export const listTemplates = defineEndpoint({
  method: 'GET',
  url: '/api/v1/templates',
  operationId: 'listTemplates',
  tags: TAGS,
  summary: 'List the templates you can read, newest first',
  access: READ,
  querystring: closed({
    ...pageQuery,
    type: Type.Optional(oneOf(TYPES)),
    format: Type.Optional(oneOf(FORMATS)),
  }),
  responses: {
    200: {
      description: 'A page of the templates the caller may read',
      schema: Type.Object({ templates: list(Template, 100), pagination: Pagination }),
      contentType: 'application/json',
    },
  },
  handler: async (request, { clients }) => {
    const q = request.query;
    const res = await clients.templates.listTemplates(
      {
        principal: principalOf(request),
        page: { page: q.page ?? 1, limit: q.limit ?? 20 },
        type: q.type ?? '',
        format: q.format ?? '',
        name_actors: true,
      },
      { idempotent: true },
    );
    return {
      templates: res.templates.map(presentTemplate),
      pagination: presentPagination(res.pagination!),
    };
  },
});

export const createTemplate = defineEndpoint({
  method: 'POST',
  url: '/api/v1/templates',
  operationId: 'createTemplate',
  tags: TAGS,
  summary: 'Create a template (version 1; you are its owner)',
  access: WRITE,
  body: closed(templateFields),
  responses: { 201: { description: 'The template', schema: Template, contentType: 'application/json' } },
  handler: async (request, { clients }) => {
    const b = request.body;
    const t = await clients.templates.createTemplate({
      principal: principalOf(request),
      name: b.name,
      type: b.type,
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
    return presentTemplate(t);
  },
});

export const getTemplate = defineEndpoint({
  method: 'GET',
  url: '/api/v1/templates/:template_id',
  operationId: 'getTemplate',
  tags: TAGS,
  summary: 'Get a template',
  access: READ,
  params: templateParams,
  responses: { 200: { description: 'The template', schema: Template, contentType: 'application/json' } },
  handler: async (request, { clients }) =>
    presentTemplate(
      await clients.templates.getTemplate(
        { principal: principalOf(request), template_id: request.params.template_id },
        { idempotent: true },
      ),
    ),
});

const { name, type, ...rest } = templateFields;

export const updateTemplate = defineEndpoint({
  method: 'PATCH',
  url: '/api/v1/templates/:template_id',
  operationId: 'updateTemplate',
  tags: TAGS,
  summary: 'Change fields (a new version; lists replace the whole list)',
  access: WRITE,
  params: templateParams,
  body: closed({ name: Type.Optional(name), type: Type.Optional(type), ...rest }, { minProperties: 1 }),
  responses: { 200: { description: 'The template', schema: Template, contentType: 'application/json' } },
  handler: async (request, { clients }) => {
    const b = request.body;
    return presentTemplate(
      await clients.templates.updateTemplate({
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
});

export const deleteTemplate = defineEndpoint({
  method: 'DELETE',
  url: '/api/v1/templates/:template_id',
  operationId: 'deleteTemplate',
  tags: TAGS,
  summary: 'Delete a template with its versions and grants',
  access: WRITE,
  params: templateParams,
  responses: {
    200: { description: 'Deleted', schema: Type.Object({ id: str(64), deleted: bool }) },
  },
  handler: async (request, { clients }) => {
    const res = await clients.templates.deleteTemplate({
      principal: principalOf(request),
      template_id: request.params.template_id,
    });
    return { id: res.id, deleted: res.deleted };
  },
});
