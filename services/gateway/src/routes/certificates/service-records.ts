// Service records (unversioned surface, docs/service-records.md): append (the brand, or a
// repairer's key holding only `service_records.write`), list (the brand or the owner), and the
// owner's accept or refuse. Each route makes one call to the certificates service's
// ServiceRecordsService, which decides who the caller is from the principal and the
// certificate (the scope checked here is the first gate, the service's the second: a key
// never gets past either with more than its scopes).
import type { ServiceRecord } from '@hallmark/proto/certificates/v1/service_records';
import type { Access } from '../../endpoint/define.js';
import { defineEndpoint } from '../../endpoint/define.js';
import { closed, list, nullable, str, time, Type, type Static } from '../../endpoint/schema.js';
import type { Clients } from '../../clients.js';
import { principalOf } from '../shared.js';
import { PublicCertificate, TAGS } from './certificate.js';
import { presentPublicCertificate } from './public.js';
import {
  presentAttachment,
  ServiceAttachmentSchema,
  serviceKind,
  type ServiceKindName,
} from './service-history.js';

/** The brand (transactions.update) or its repairer's key (service_records.write); sessions hold admin.*. */
const APPEND: Access = { auth: 'either', scope: ['service_records.write', 'transactions.update'] };
/** The brand (a key that reads or writes its transactions) or the owner (a user session). */
const READ: Access = { auth: 'either', scope: ['transactions.read', 'transactions.update'] };
/** The owner: a user session whose custodial wallet holds the certificate. */
const OWNER: Access = { auth: 'session' };

const status = Type.Unsafe<'pending' | 'accepted' | 'refused'>({
  type: 'string',
  enum: ['pending', 'accepted', 'refused'],
});

const ServiceRecordSchema = Type.Object(
  {
    id: str(64),
    certificateId: str(64),
    kind: serviceKind,
    label: nullable(str(100)),
    performedAt: time,
    performer: str(200),
    description: str(4000),
    attachments: list(ServiceAttachmentSchema, 10),
    addedBy: Type.Object({
      type: Type.Unsafe<'brand' | 'repairer'>({ type: 'string', enum: ['brand', 'repairer'] }),
      id: str(64, 'The API key (apikey_…) or user (user_…)'),
    }),
    createdAt: time,
    status,
    decidedAt: nullable(time),
  },
  { description: 'A service record as the brand and the owner read it' },
);

function presentRecord(r: ServiceRecord): Static<typeof ServiceRecordSchema> {
  return {
    id: r.id,
    certificateId: r.certificate_id,
    kind: r.kind as ServiceKindName,
    label: r.label ?? null,
    performedAt: r.performed_at,
    performer: r.performer,
    description: r.description,
    attachments: r.attachments.map(presentAttachment),
    addedBy: { type: r.added_by!.type as 'brand' | 'repairer', id: r.added_by!.id },
    createdAt: r.created_at,
    status: r.status as 'pending' | 'accepted' | 'refused',
    decidedAt: r.decided_at ?? null,
  };
}

const certParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });

export const addServiceRecord = defineEndpoint({
  method: 'POST',
  url: '/api/certificates/:id/service-records',
  operationId: 'addServiceRecord',
  tags: TAGS,
  summary: 'Append a service record (the brand or a repairer key)',
  description:
    'The brand (API key with `transactions.update`, or a session) or a repairer’s key of the brand (scope ' +
    '`service_records.write`, which allows this and nothing else) records work done on the item. Attachments ' +
    'are https URLs of images (photos, scanned documents: PNG, JPEG, WebP, GIF), fetched once and archived by ' +
    'Hallmark (`/media/<sha256>`); one that does not answer with an image is 400 `parameter_invalid` and ' +
    'nothing is written. The record is `pending` until the owner accepts or refuses it; only accepted ones ' +
    'are public. Fires `certificate.service_record_added`. Another enterprise’s certificate: 404.',
  access: APPEND,
  params: certParams,
  body: closed({
    kind: serviceKind,
    label: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'Required with `other`' })),
    performedAt: Type.String({
      minLength: 10,
      maxLength: 40,
      description: 'ISO 8601 date or date-time the work was done; not in the future',
    }),
    performer: Type.String({ minLength: 1, maxLength: 200, description: 'The workshop or person' }),
    description: Type.String({ minLength: 1, maxLength: 4000 }),
    attachments: Type.Optional(
      Type.Array(
        closed({
          kind: Type.Unsafe<'photo' | 'document'>({ type: 'string', enum: ['photo', 'document'] }),
          url: Type.String({ minLength: 9, maxLength: 2048, pattern: '^https://' }),
          caption: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
        }),
        { maxItems: 10 },
      ),
    ),
  }),
  responses: {
    201: {
      description: 'The pending record',
      schema: Type.Object({ success: Type.Literal(true), record: ServiceRecordSchema }),
    },
  },
  handler: async (request, { clients }) => {
    const b = request.body;
    const record = await clients.serviceRecords.addServiceRecord({
      principal: principalOf(request),
      certificate_id: request.params.id,
      kind: b.kind,
      label: b.label,
      performed_at: b.performedAt,
      performer: b.performer,
      description: b.description,
      attachments: (b.attachments ?? []).map((a) => ({ kind: a.kind, url: a.url, caption: a.caption })),
    });
    return { success: true as const, record: presentRecord(record) };
  },
});

export const listServiceRecords = defineEndpoint({
  method: 'GET',
  url: '/api/certificates/:id/service-records',
  operationId: 'listServiceRecords',
  tags: TAGS,
  summary: 'A certificate’s service records of every status (the brand or the owner)',
  description:
    'Pending, accepted and refused records, oldest performed first. The brand (API key with ' +
    '`transactions.read` or `transactions.update`, or a session) or the owner (a user session whose custodial ' +
    'wallet holds the certificate). A repairer key (only `service_records.write`): 403. Anyone else: 404.',
  access: READ,
  params: certParams,
  responses: {
    200: {
      description: 'Every record',
      schema: Type.Object({ success: Type.Literal(true), records: list(ServiceRecordSchema, 10_000) }),
    },
  },
  handler: async (request, { clients }) => {
    const res = await clients.serviceRecords.listServiceRecords({
      principal: principalOf(request),
      certificate_id: request.params.id,
    });
    return { success: true as const, records: res.records.map(presentRecord) };
  },
});

const Decided = Type.Object({
  success: Type.Literal(true),
  record: ServiceRecordSchema,
  certificate: PublicCertificate,
});

const OWNER_DECIDES =
  'Only the owner (a user session whose custodial wallet holds the certificate) decides; the brand and ' +
  'its repairers: 403; anyone else: 404. A decision is final: a second one is 422 `validation_failed`. ';
const decisionParams = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 64 }),
  record_id: Type.String({ minLength: 1, maxLength: 64 }),
});

/** The one call both decisions make. */
async function decide(
  clients: Clients,
  publicUrl: string,
  request: { params: { id: string; record_id: string } } & Parameters<typeof principalOf>[0],
  verb: 'accept' | 'refuse',
) {
  const res = await clients.serviceRecords.decideServiceRecord({
    principal: principalOf(request),
    certificate_id: request.params.id,
    record_id: request.params.record_id,
    decision: verb,
  });
  return {
    success: true as const,
    record: presentRecord(res.record!),
    certificate: presentPublicCertificate(res.certificate!, publicUrl),
  };
}

export const acceptServiceRecord = defineEndpoint({
  method: 'POST',
  url: '/api/certificates/:id/service-records/:record_id/accept',
  operationId: 'acceptServiceRecord',
  tags: TAGS,
  summary: 'Accept a service record: it shows on the verify page (the owner)',
  description:
    OWNER_DECIDES +
    'The record joins the certificate’s public `serviceHistory`. Fires `certificate.service_record_accepted`.',
  access: OWNER,
  params: decisionParams,
  responses: {
    200: { description: 'The accepted record and the certificate as anyone now reads it', schema: Decided },
  },
  handler: async (request, { clients, config }) =>
    decide(clients, config.HALLMARK_PUBLIC_URL, request, 'accept'),
});

export const refuseServiceRecord = defineEndpoint({
  method: 'POST',
  url: '/api/certificates/:id/service-records/:record_id/refuse',
  operationId: 'refuseServiceRecord',
  tags: TAGS,
  summary: 'Refuse a service record: it is never shown publicly (the owner)',
  description:
    OWNER_DECIDES + 'The brand keeps it (listed as `refused`). Fires `certificate.service_record_refused`.',
  access: OWNER,
  params: decisionParams,
  responses: {
    200: { description: 'The refused record and the certificate as anyone now reads it', schema: Decided },
  },
  handler: async (request, { clients, config }) =>
    decide(clients, config.HALLMARK_PUBLIC_URL, request, 'refuse'),
});
