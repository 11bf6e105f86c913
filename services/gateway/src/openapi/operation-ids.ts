// Stable operationIds: generated clients and the CLI name their methods after these, so an
// id never changes once published. A route missing here fails the document build (and so
// `pnpm lint:openapi` and the contract tests) instead of getting a made-up name.
export const OPERATION_IDS: Record<string, string> = {
  'PATCH /api/bulk-mint/{jobId}/items/{row}': 'fixBulkMintItem',
  'GET /api/v1/templates': 'listTemplates',
  'POST /api/v1/templates': 'createTemplate',
  'GET /api/v1/templates/{template_id}': 'getTemplate',
  'PATCH /api/v1/templates/{template_id}': 'updateTemplate',
  'DELETE /api/v1/templates/{template_id}': 'deleteTemplate',
  'GET /api/v1/templates/{template_id}/versions': 'listTemplateVersions',
  'POST /api/v1/templates/{template_id}/versions/{version}/restore': 'restoreTemplateVersion',
  'GET /api/v1/templates/{template_id}/access': 'listTemplateGrants',
  'POST /api/v1/templates/{template_id}/access': 'grantTemplateAccess',
  'DELETE /api/v1/templates/{template_id}/access/{user_id}': 'revokeTemplateAccess',
  'POST /api/v1/templates/{template_id}/render': 'renderTemplate',
  'POST /api/enterprise/templates/init-warranty': 'initWarrantyTemplate',
  'GET /api/enterprise/templates/{id}': 'getWarrantyTemplate',
  'POST /api/bulk-mint': 'createBulkMintJob',
  'GET /api/bulk-mint': 'listBulkMintJobs',
  'GET /api/bulk-mint/{jobId}': 'getBulkMintJob',
  'POST /api/bulk-mint/{jobId}/retry': 'retryBulkMintJob',
  'POST /api/bulk-mint/{jobId}/cancel': 'cancelBulkMintJob',
  'GET /api/bulk-mint/{jobId}/download/{type}': 'downloadBulkMintResults',
  'GET /api/bulk-mint/template/csv': 'getBulkMintCsvTemplate',
};
