// The payload of the service-record events (certificates service, docs/service-records.md),
// apart from events.ts to keep that table short. Ours beyond the spec's list, versioned like
// the lost-and-stolen ones: a `/api/v1/webhooks` endpoint subscribes to them.
// - certificate.service_record_added: the brand or a repairer key appended a record (pending);
// - certificate.service_record_accepted / _refused: the owner decided.
// `object` is the certificate (id, tokenId) with `serviceRecord`: id, kind (repair |
// authentication_check | refurbishment | other), label, performedAt, performer, description,
// attachments [{kind, sha256, caption}], addedBy {type brand | repairer, id}, status (pending |
// accepted | refused) and decidedAt. Written in the transaction that changes the record; the
// gateway's public cache drops the certificate's entries on them (subject certificate.*).
import { z } from 'zod';

export const ServiceRecordEvent = z.object({
  object: z.looseObject({
    id: z.string().min(1),
    tokenId: z.number().nullable(),
    serviceRecord: z.looseObject({
      id: z.string().min(1),
      kind: z.enum(['repair', 'authentication_check', 'refurbishment', 'other']),
      performedAt: z.string(),
      performer: z.string(),
      addedBy: z.object({ type: z.enum(['brand', 'repairer']), id: z.string() }),
      status: z.enum(['pending', 'accepted', 'refused']),
    }),
  }),
});

const versioned = { schema: ServiceRecordEvent, webhook: { surface: 'versioned' as const } };
/** The entries of events.ts's table (spread there). */
export const SERVICE_RECORD_EVENTS = {
  'certificate.service_record_added': versioned,
  'certificate.service_record_accepted': versioned,
  'certificate.service_record_refused': versioned,
};
