// A template's versions (list, restore one as a new version) and rendering it with values.
import { defineEndpoint } from '../../endpoint/define.js';
import { closed, list, nullable, str, Type } from '../../endpoint/schema.js';
import { principalOf } from '../shared.js';
import { READ, RENDER, TAGS, WRITE } from './fields.js';
import { presentTemplate, presentVersion } from './present.js';
import { Template, TemplateVersion } from './template.js';
import { templateParams } from './templates.js';

export const listTemplateVersions = defineEndpoint({
  method: 'GET',
  url: '/api/v1/templates/:template_id/versions',
  operationId: 'listTemplateVersions',
  tags: TAGS,
  summary: 'Version records, newest first',
  access: READ,
  params: templateParams,
  responses: {
    200: {
      description: 'Version records, newest first',
      schema: Type.Object({ versions: list(TemplateVersion, 10_000) }),
      contentType: 'application/json',
    },
  },
  handler: async (request, { clients }) => {
    const res = await clients.templates.listTemplateVersions(
      { principal: principalOf(request), template_id: request.params.template_id },
      { idempotent: true },
    );
    return { versions: res.versions.map(presentVersion) };
  },
});

export const restoreTemplateVersion = defineEndpoint({
  method: 'POST',
  url: '/api/v1/templates/:template_id/versions/:version/restore',
  operationId: 'restoreTemplateVersion',
  tags: TAGS,
  summary: 'Make an earlier version current (written as a new version)',
  access: WRITE,
  params: closed({
    template_id: str(64),
    version: Type.Integer({ minimum: 1, maximum: 1_000_000 }),
  }),
  body: nullable(closed({ changelog: Type.Optional(str(1000)) })),
  responses: {
    200: {
      description: 'The template, its current version now a copy of the restored one',
      schema: Template,
      contentType: 'application/json',
    },
  },
  handler: async (request, { clients }) =>
    presentTemplate(
      await clients.templates.restoreTemplateVersion({
        principal: principalOf(request),
        template_id: request.params.template_id,
        version: request.params.version,
        changelog: request.body?.changelog,
      }),
    ),
});

export const renderTemplate = defineEndpoint({
  method: 'POST',
  url: '/api/v1/templates/:template_id/render',
  operationId: 'renderTemplate',
  tags: TAGS,
  summary: "Render with values: the file in the template's format (html, pdf or docx)",
  access: RENDER,
  params: templateParams,
  body: nullable(
    closed({
      variables: Type.Optional(
        Type.Unsafe<Record<string, unknown>>({ type: 'object', description: 'Values by variable name' }),
      ),
      locale: Type.Optional(str(35, 'BCP 47 tag for formatting; default en-US')),
    }),
  ),
  responses: {
    200: {
      description: 'The rendered file in the template’s format (HTML inline; PDF and DOCX as attachments)',
      contentType: 'application/octet-stream',
    },
  },
  handler: async (request, { clients, reply }) => {
    const r = await clients.templates.renderTemplate({
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
});
