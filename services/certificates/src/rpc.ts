// gRPC handlers of CertificatesService: proto <-> service calls, nothing else.
import { scopeOf, type AsyncHandlers } from '@hallmark/kit';
import type {
  Certificate,
  CertificatesServiceServer,
  IssuerProfile,
  ProvenanceEntry,
} from '@hallmark/proto/certificates/v1/certificates';
import { digitalLinkPath } from './digital-link/domain.js';
import { metadataView, type ProvenanceRecord } from './domain/certificate.js';
import { CertificateService, type CertificateServiceDeps } from './service.js';
import type { CertificateRead } from './store.js';
import { walletToProto } from './wallets/rpc.js';

function provenanceToProto(p: ProvenanceRecord): ProvenanceEntry {
  return {
    kind: p.kind,
    actor: p.actor ?? undefined,
    from: p.from ?? undefined,
    to: p.to ?? undefined,
    transaction_hash: p.transactionHash ?? undefined,
    block_number: p.blockNumber ?? undefined,
    at: p.at.toISOString(),
  };
}

export function toProto({ certificate: c, provenance }: CertificateRead): Certificate {
  return {
    id: c.id,
    token_id: c.tokenId === null ? undefined : Number(c.tokenId),
    name: c.name,
    image_url: c.imageUrl ?? undefined,
    metadata_json: JSON.stringify(metadataView(c)),
    metadata_hash: c.metadataHash,
    batch_id: c.batchId,
    holder_address: c.holderAddress,
    status: c.status,
    transaction_hash: c.transactionHash ?? undefined,
    block_number: c.blockNumber ?? undefined,
    created_at: c.createdAt.toISOString(),
    updated_at: c.updatedAt.toISOString(),
    provenance: provenance.map(provenanceToProto),
    livemode: c.livemode,
    enterprise_id: c.enterpriseId,
    ...(c.gtin !== null && c.serial !== null
      ? { gtin: c.gtin, serial: c.serial, digital_link_path: digitalLinkPath(c.gtin, c.serial) }
      : {}),
    // The public part of an open lost/stolen report: never its reason nor the reporter's id.
    stolen: c.stolen
      ? { kind: c.stolen.kind, reported_at: c.stolen.reportedAt, reported_by: c.stolen.reportedBy.type }
      : undefined,
    // Accepted service records only (pending and refused ones never leave the slice's own read).
    service_history: (c.serviceHistory ?? []).map((e) => ({
      id: e.id,
      kind: e.kind,
      label: e.label ?? undefined,
      performed_at: e.performedAt,
      performer: e.performer,
      description: e.description,
      attachments: e.attachments.map((a) => ({
        kind: a.kind,
        sha256: a.sha256,
        content_type: a.contentType,
        width: a.width,
        height: a.height,
        caption: a.caption ?? undefined,
      })),
      accepted_at: e.acceptedAt,
    })),
  };
}

/** What the public reads (of any slice) add to what they read: the issuer line. */
export interface PublicReadDeps {
  /**
   * The public issuer profile of an enterprise (the issuers slice's read model), which the
   * public reads carry; unset: they carry none (main.ts wires it).
   */
  issuerOf?: (enterpriseId: string) => Promise<IssuerProfile | undefined>;
}

const noIssuer = async (): Promise<IssuerProfile | undefined> => undefined;

/** The handlers over a CertificateService built from `deps`. */
export function createCertificatesHandlers(
  deps: CertificateServiceDeps & PublicReadDeps,
): AsyncHandlers<CertificatesServiceServer> {
  const service = new CertificateService(deps);
  const issuerOf = deps.issuerOf ?? noIssuer;
  return {
    async mintBatch(req) {
      const batch = await service.mintBatch(scopeOf(req.principal), {
        idempotencyKey: req.idempotency_key,
        holderAddress: req.holder_address,
        holderAccount: req.holder_account,
        items: req.items,
      });
      return {
        batch_id: batch.batchId,
        status: batch.status,
        // status_only: the caller reads the certificates later (a bulk job, GetMintBatch).
        certificates: req.status_only ? [] : batch.certificates.map(toProto),
        replayed: batch.replayed,
        minted: [],
      };
    },

    async getMintBatch(req, call) {
      const scope = scopeOf(req.principal);
      const status = await service.waitForBatch(scope, req.batch_id, req.wait_ms, call.deadlineMs);
      const answer = { batch_id: req.batch_id, status, certificates: [], replayed: false, minted: [] };
      if (req.status_only) return answer;
      if (req.refs_only) {
        const refs = await service.batchRefs(req.batch_id);
        return {
          ...answer,
          minted: refs.map((r) => ({
            id: r.id,
            token_id: r.tokenId === null ? undefined : Number(r.tokenId),
            transaction_hash: r.transactionHash ?? undefined,
            block_number: r.blockNumber ?? undefined,
          })),
        };
      }
      const batch = await service.readBatch(req.batch_id);
      return {
        batch_id: batch.batchId,
        status: batch.status,
        certificates: batch.certificates.map(toProto),
        replayed: false,
        minted: [],
      };
    },

    async getCertificate(req) {
      return toProto(await service.get(scopeOf(req.principal), req.certificate_id));
    },

    async getPublicCertificate(req) {
      const read = await service.getPublic(req.certificate_id);
      return { ...toProto(read), issuer: await issuerOf(read.certificate.enterpriseId) };
    },

    async getPublicCertificates(req) {
      const reads = await service.getPublicMany(req.certificate_ids);
      // One issuer read per enterprise of the batch (a batch of scans is mostly one brand's).
      const issuers = new Map<string, Promise<IssuerProfile | undefined>>();
      for (const r of reads) {
        const e = r.certificate.enterpriseId;
        if (!issuers.has(e)) issuers.set(e, issuerOf(e));
      }
      return {
        certificates: await Promise.all(
          reads.map(async (r) => ({ ...toProto(r), issuer: await issuers.get(r.certificate.enterpriseId) })),
        ),
      };
    },

    async listProvenance(req) {
      const read = await service.get(scopeOf(req.principal), req.certificate_id);
      return { entries: read.provenance.map(provenanceToProto) };
    },

    async ensureWallet(req) {
      return walletToProto(await service.ensureWallet(scopeOf(req.principal), req.owner));
    },

    async transfer(req) {
      const {
        transfer: t,
        certificate,
        replayed,
      } = await service.transfer(scopeOf(req.principal), {
        certificateId: req.certificate_id,
        idempotencyKey: req.idempotency_key,
        toUserId: req.to_user_id,
        toAddress: req.to_address,
      });
      return {
        status: t.status,
        certificate: toProto(certificate),
        from_address: t.from_address,
        to_address: t.to_address,
        transaction_hash: t.tx_hash ?? undefined,
        block_number: t.block_number === null ? undefined : Number(t.block_number),
        replayed,
      };
    },

    async health() {
      const h = await service.health();
      return {
        database: h.database,
        chain: h.block !== null,
        block_number: h.block ?? undefined,
        relayer_balance_wei: h.relayerBalanceWei?.toString(),
        relayer_low: h.relayerLow,
      };
    },
  };
}
