// Assembly of the document-templates half: the store, the service and the TemplatesService binding.
import { bind, type ServiceDeps } from '@hallmark/kit';
import { TemplatesServiceService, type TemplatesServiceServer } from '@hallmark/proto/notify/v1/templates';
import { createTemplatesHandlers } from './rpc.js';
import { DocumentTemplatesService } from './service.js';
import { DocumentTemplatesStore } from './store.js';

export const TEMPLATES_PROTO = 'hallmark/notify/v1/templates.proto';

export function createTemplates({ pool }: Pick<ServiceDeps, 'pool'>) {
  const store = new DocumentTemplatesStore(pool);
  return {
    store,
    binding: bind<TemplatesServiceServer>(
      TemplatesServiceService,
      createTemplatesHandlers(new DocumentTemplatesService(store)),
    ),
  };
}
