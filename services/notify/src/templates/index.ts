// Assembly of the document-templates half: the store, the service (asking keys about actors
// over gRPC) and the TemplatesService binding.
import { bind, createGrpcClient, type ServiceDeps } from '@hallmark/kit';
import { KeysServiceClient } from '@hallmark/proto/keys/v1/keys';
import { TemplatesServiceService, type TemplatesServiceServer } from '@hallmark/proto/notify/v1/templates';
import { grpcCheckActors } from './actors.js';
import { createTemplatesHandlers } from './rpc.js';
import { DocumentTemplatesService } from './service.js';
import { DocumentTemplatesStore } from './store.js';

export const TEMPLATES_PROTO = 'hallmark/notify/v1/templates.proto';

export function createTemplates({ pool }: Pick<ServiceDeps, 'pool'>, keysAddr: string) {
  const store = new DocumentTemplatesStore(pool);
  const keys = createGrpcClient(KeysServiceClient, keysAddr);
  return {
    store,
    binding: bind<TemplatesServiceServer>(
      TemplatesServiceService,
      createTemplatesHandlers(new DocumentTemplatesService(store, grpcCheckActors(keys.api))),
    ),
    /** Closes the keys client at shutdown. */
    worker: { start: async () => undefined, stop: async () => keys.close() },
  };
}
