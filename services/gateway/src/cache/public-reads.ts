// The public certificate reads behind the cache, batched: the misses of concurrent scans (a
// long tail of QR codes, most read once) become one GetPublicCertificates call and one SQL
// statement for all of them, instead of one gRPC call and two statements each. Batching is
// what takes the per-call cost of the hop (HTTP/2 framing, protobuf, the service's handler and
// its round trips to PostgreSQL) off each read (issue 31: the miss path and the long tail).
//
// A batch is what arrived before the event loop next turns (setImmediate): the reads whose
// requests were parsed in the same I/O pass. A lone read waits for nothing more than that
// turn and goes as GetPublicCertificate, answered exactly as it always was. Batches are
// bounded by the service's limit (MAX_BATCH). Nothing is cached here: the public cache in
// front of this (public-cache.ts) keeps answers and shares one fill per key. A batched call
// carries the request id (and trace) of the read that opened the batch: the service's log of
// a batch names one of its requests.
import { notFound } from '@hallmark/kit';
import type { AsyncClient } from '@hallmark/kit';
import type { Certificate, CertificatesServiceClient } from '@hallmark/proto/certificates/v1/certificates';
import DataLoader from 'dataloader';

/** GetPublicCertificates takes at most this many ids (the certificates service's limit). */
export const MAX_BATCH = 100;

export interface PublicCertificateReader {
  /** The public read of a certificate; resource_not_found for an unknown or malformed id. */
  read(certificateId: string): Promise<Certificate>;
}

export function publicCertificateReader(
  certificates: Pick<
    AsyncClient<CertificatesServiceClient>,
    'getPublicCertificate' | 'getPublicCertificates'
  >,
): PublicCertificateReader {
  const loader = new DataLoader<string, Certificate>(
    async (ids) => {
      if (ids.length === 1) {
        // One read: the single call, its answer or error exactly as the service gives them.
        return [
          await certificates
            .getPublicCertificate({ certificate_id: ids[0]! }, { idempotent: true })
            .catch((err: Error) => err),
        ];
      }
      const { certificates: found } = await certificates.getPublicCertificates(
        { certificate_ids: [...new Set(ids)] },
        { idempotent: true },
      );
      const byId = new Map(found.map((c) => [c.id, c]));
      // An id not answered is unknown: the same error the single read gives.
      return ids.map((id) => byId.get(id) ?? notFound('certificate', id));
    },
    {
      // Answers are cached in front of this, with invalidation; here every read is fresh.
      cache: false,
      maxBatchSize: MAX_BATCH,
      batchScheduleFn: (dispatch) => setImmediate(dispatch),
    },
  );
  return { read: (id) => loader.load(id) };
}
