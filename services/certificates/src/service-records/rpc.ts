// ServiceRecordsService handlers: proto <-> service calls, nothing else.
import type { AsyncHandlers } from '@hallmark/kit';
import type { ServiceAttachment } from '@hallmark/proto/certificates/v1/certificates';
import type {
  ServiceRecord as ServiceRecordProto,
  ServiceRecordsServiceServer,
} from '@hallmark/proto/certificates/v1/service_records';
import type { Attachment, ServiceRecord } from '../domain/service-record.js';
import { toProto } from '../rpc.js';
import { ServiceRecordsService, type ServiceRecordsDeps } from './service.js';

export const attachmentToProto = (a: Attachment): ServiceAttachment => ({
  kind: a.kind,
  sha256: a.sha256,
  content_type: a.contentType,
  width: a.width,
  height: a.height,
  caption: a.caption ?? undefined,
});

export function recordToProto(r: ServiceRecord): ServiceRecordProto {
  return {
    id: r.id,
    certificate_id: r.certificateId,
    kind: r.kind,
    label: r.label ?? undefined,
    performed_at: r.performedAt,
    performer: r.performer,
    description: r.description,
    attachments: r.attachments.map(attachmentToProto),
    added_by: r.addedBy,
    created_at: r.createdAt,
    status: r.status,
    decided_at: r.decidedAt ?? undefined,
  };
}

export function createServiceRecordHandlers(
  deps: ServiceRecordsDeps,
): AsyncHandlers<ServiceRecordsServiceServer> {
  const service = new ServiceRecordsService(deps);
  return {
    async addServiceRecord(req) {
      const record = await service.add(req.principal, req.certificate_id, {
        kind: req.kind,
        label: req.label,
        performedAt: req.performed_at,
        performer: req.performer,
        description: req.description,
        attachments: req.attachments.map((a) => ({ kind: a.kind, url: a.url, caption: a.caption })),
      });
      return recordToProto(record);
    },

    async listServiceRecords(req) {
      return { records: (await service.list(req.principal, req.certificate_id)).map(recordToProto) };
    },

    async decideServiceRecord(req) {
      const { record, read } = await service.decide(req.principal, {
        certificateId: req.certificate_id,
        recordId: req.record_id,
        decision: req.decision,
      });
      return { record: recordToProto(record), certificate: toProto(read) };
    },
  };
}
