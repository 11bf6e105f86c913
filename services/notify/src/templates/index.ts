// Assembly of the templates half: the store and the TemplatesService binding.
import { bind, type ServiceDeps } from '@hallmark/kit';
import { TemplatesServiceService, type TemplatesServiceServer } from '@hallmark/proto/notify/v1/templates';
import { createTemplatesHandlers } from './rpc.js';
import { TemplatesStore } from './store.js';

export const TEMPLATES_PROTO = 'hallmark/notify/v1/templates.proto';

export function createTemplates({ pool }: Pick<ServiceDeps, 'pool'>) {
  const store = new TemplatesStore(pool);
  return {
    store,
    binding: bind<TemplatesServiceServer>(TemplatesServiceService, createTemplatesHandlers(store)),
  };
}
