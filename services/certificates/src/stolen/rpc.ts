// LostAndStolenService handlers: proto <-> service calls, nothing else.
import type { AsyncHandlers } from '@hallmark/kit';
import type { LostAndStolenServiceServer, StolenReport } from '@hallmark/proto/certificates/v1/stolen';
import type { StolenReportRecord } from '../domain/stolen.js';
import { toProto } from '../rpc.js';
import { StolenService, type StolenServiceDeps } from './service.js';

export function reportToProto(r: StolenReportRecord): StolenReport {
  return {
    certificate_id: r.certificateId,
    kind: r.kind,
    reason: r.reason,
    reported_at: r.reportedAt,
    reported_by: r.reportedBy,
    cleared_at: r.cleared?.at,
    cleared_by: r.cleared?.by,
    clear_reason: r.cleared?.reason,
    recovered_to: r.recoveredTo ?? undefined,
  };
}

export function createStolenHandlers(deps: StolenServiceDeps): AsyncHandlers<LostAndStolenServiceServer> {
  const service = new StolenService(deps);
  return {
    async reportStolen(req) {
      const { report, read } = await service.report(req.principal, {
        certificateId: req.certificate_id,
        kind: req.kind,
        reason: req.reason,
      });
      return { report: reportToProto(report), certificate: toProto(read) };
    },

    async clearStolen(req) {
      const { report, read } = await service.clear(req.principal, {
        certificateId: req.certificate_id,
        reason: req.reason,
      });
      return { report: reportToProto(report), certificate: toProto(read) };
    },

    async listStolenReports(req) {
      return { reports: (await service.list(req.principal, req.certificate_id)).map(reportToProto) };
    },

    async recoverCertificate(req) {
      const { transfer, certificate, replayed } = await service.recover(req.principal, {
        certificateId: req.certificate_id,
        idempotencyKey: req.idempotency_key,
        toUserId: req.to_user_id,
        toAddress: req.to_address,
        reason: req.reason,
      });
      return {
        status: transfer.status,
        to_address: transfer.to_address,
        transaction_hash: transfer.tx_hash ?? undefined,
        replayed,
        certificate: toProto(certificate),
      };
    },

    async getStolenPolicy(req) {
      return { cleared_by: await service.getPolicy(req.principal) };
    },

    async setStolenPolicy(req) {
      return { cleared_by: await service.setPolicy(req.principal, req.cleared_by) };
    },
  };
}
