// The tags slice (tap to verify, docs/nfc-tags.md) assembled for main.ts: store, service and
// its gRPC binding. It needs HALLMARK_ENCRYPTION_KEYS (the master keys are stored encrypted);
// without them main.ts binds no TagService.
import { bind, type Logger, type Pool } from '@hallmark/kit';
import { TagServiceService, type TagServiceServer } from '@hallmark/proto/certificates/v1/tags';
import { createTagHandlers } from './rpc.js';
import { TagService, type TagServiceDeps } from './service.js';
import { TagStore } from './store.js';

export function tagsSlice(d: {
  pool: Pool;
  log: Logger;
  encryptionKeys: string;
  publicUrl: string;
  verify: TagServiceDeps['verify'];
}) {
  const service = new TagService({
    store: new TagStore(d.pool, d.encryptionKeys),
    publicUrl: d.publicUrl,
    verify: d.verify,
    log: d.log,
  });
  return { service, binding: bind<TagServiceServer>(TagServiceService, createTagHandlers(service)) };
}
