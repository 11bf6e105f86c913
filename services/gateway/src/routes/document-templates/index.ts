// Document templates (`/api/v1/templates`, notify's), each endpoint declared once
// (endpoint/define.ts): templates and versions, then who may use them. Not the warranty
// template (`routes/warranty-templates/`).
import type { FastifyInstance } from 'fastify';
import { registerEndpoints } from '../../endpoint/define.js';
import type { RouteDeps } from '../shared.js';
import { grantTemplateAccess, listTemplateGrants, revokeTemplateAccess } from './access.js';
import { createTemplate, deleteTemplate, getTemplate, listTemplates, updateTemplate } from './templates.js';
import { listTemplateVersions, renderTemplate, restoreTemplateVersion } from './versions.js';

export default async function routes(app: FastifyInstance, deps: RouteDeps) {
  registerEndpoints(app, deps, [
    listTemplates,
    createTemplate,
    getTemplate,
    updateTemplate,
    deleteTemplate,
    listTemplateVersions,
    restoreTemplateVersion,
    renderTemplate,
    listTemplateGrants,
    grantTemplateAccess,
    revokeTemplateAccess,
  ]);
}
