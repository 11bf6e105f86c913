// The search slice assembled for main.ts: the store, the service (with the recipient e-mail's
// blind index when encryption keys are configured), its gRPC binding and the index backfill.
import { bind, Encryptor, type Logger, type Pool } from '@hallmark/kit';
import {
  CertificateSearchServiceService,
  type CertificateSearchServiceServer,
} from '@hallmark/proto/certificates/v1/search';
import { RecipientEmailIndex } from '../domain/email-index.js';
import { createSearchHandlers } from './rpc.js';
import { SearchService } from './service.js';
import { SearchStore } from './store.js';
import { emailIndexBackfill } from './workers/email-index.js';

export function searchSlice(d: { pool: Pool; log: Logger; encryptionKeys?: string }) {
  const store = new SearchStore(d.pool);
  const index = d.encryptionKeys ? new RecipientEmailIndex(d.encryptionKeys) : null;
  const service = new SearchService({ store, emailIndex: index });
  return {
    binding: bind<CertificateSearchServiceServer>(
      CertificateSearchServiceService,
      createSearchHandlers(service),
    ),
    workers:
      index && d.encryptionKeys
        ? [
            emailIndexBackfill({
              store,
              encryptor: new Encryptor(d.encryptionKeys),
              index,
              log: d.log,
              pool: d.pool,
            }),
          ]
        : [],
  };
}
