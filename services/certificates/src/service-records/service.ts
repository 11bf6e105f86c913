// Service records use cases (docs/service-records.md): append (the brand or a repairer key),
// list (the brand or the owner), accept or refuse (the owner).
//
// Who the caller is comes from the principal and the certificate, never from the request:
// - the brand: a principal of the certificate's enterprise and mode with the brand's scopes;
// - a repairer: a key of that enterprise and mode whose scopes give `service_records.write`
//   and none of the brand's: it appends, nothing more;
// - the owner: a user session whose own custodial wallet holds the certificate;
// - anyone else: not found, exactly as an unknown certificate. A principal of the enterprise
//   without the scope an action needs: 403 (fail closed).
import {
  HallmarkError,
  invalidParam,
  isId,
  missingParam,
  newId,
  notFound,
  requirePrincipal,
  transaction,
  type Pool,
} from '@hallmark/kit';
import type { Principal } from '@hallmark/proto/common/v1/common';
import { certificateFromRow } from '../certificate-rows.js';
import type { CertificateRecord } from '../domain/certificate.js';
import {
  alreadyDecided,
  BRAND_WRITE,
  enterpriseRoleOf,
  isDecision,
  parseNewRecord,
  SERVICE_RECORDS_WRITE,
  type Attachment,
  type NewServiceRecordInput,
  type ServiceRecord,
} from '../domain/service-record.js';
import type { CertificateRead, CertificatesStore } from '../store.js';
import type { WalletStore } from '../wallets/store.js';
import {
  certificateRow,
  decideRecord,
  insertRecord,
  lockCertificateRow,
  lockRecord,
  recordsOf,
} from './store.js';

/** What the slice needs of the media slice: archive a URL (content-addressed, idempotent). */
export interface MediaArchive {
  archiveUrl(
    url: string,
    name?: string,
  ): Promise<{ sha256: string; contentType: string; width: number; height: number }>;
}

export interface ServiceRecordsDeps {
  pool: Pool;
  certificates: CertificatesStore;
  /** Null without custodial wallets: then no owner is known and nothing can be decided. */
  wallets: WalletStore | null;
  media: MediaArchive;
  now?: () => Date;
}

type Caller = { type: 'brand' | 'repairer' | 'owner'; id: string };

const refused = (needed: string, what: string) =>
  new HallmarkError('insufficient_permissions', {
    message: `This credential may not ${what}.`,
    extras: { required_permission: needed },
  });

export class ServiceRecordsService {
  constructor(private readonly deps: ServiceRecordsDeps) {}

  /**
   * The caller for this certificate. `need` picks the scope a principal of the enterprise must
   * hold; a principal of the enterprise without it is refused, never treated as the owner.
   */
  private async callerOf(
    principal: Principal,
    cert: CertificateRecord,
    need: 'append' | 'read',
  ): Promise<Caller | null> {
    if (principal.livemode !== cert.livemode) return null;
    if (principal.enterprise_id === cert.enterpriseId) {
      const role = enterpriseRoleOf(principal.scopes, need);
      if (!role)
        throw need === 'append'
          ? refused(SERVICE_RECORDS_WRITE, 'append service records')
          : refused('transactions.read', 'read service records');
      return { type: role, id: principal.actor_id || principal.enterprise_id };
    }
    if (principal.actor_type !== 'user' || !isId('user', principal.actor_id) || !this.deps.wallets)
      return null;
    const w = await this.deps.wallets.byAddress(cert.holderAddress);
    return w && w.ownerKind === 'user' && w.ownerId === principal.actor_id
      ? { type: 'owner', id: principal.actor_id }
      : null;
  }

  async add(
    p: Principal | undefined,
    certificateId: string | undefined,
    input: NewServiceRecordInput,
  ): Promise<ServiceRecord> {
    const principal = requirePrincipal(p);
    const id = this.certificateIdOf(certificateId);
    const row = await certificateRow(this.deps.pool, id);
    if (!row) throw notFound('certificate', id);
    const cert = certificateFromRow(row);
    const by = await this.callerOf(principal, cert, 'append');
    if (!by) throw notFound('certificate', id);
    if (by.type === 'owner')
      throw refused(BRAND_WRITE, 'append service records (only the brand or its repairers)');
    if (cert.status === 'burned') {
      throw new HallmarkError('validation_failed', {
        param: 'certificate_id',
        message: 'A burned certificate takes no service records.',
      });
    }
    const parsed = parseNewRecord(input, (this.deps.now ?? (() => new Date()))());
    // Fetched before the transaction (no row lock held over the network); an object stored for
    // a record that then fails is harmless: content-addressed, shared, never listed.
    const attachments: Attachment[] = [];
    for (const [i, a] of parsed.attachments.entries()) {
      const m = await this.deps.media.archiveUrl(a.url, `attachments[${i}].url`);
      attachments.push({
        kind: a.kind,
        sha256: m.sha256,
        contentType: m.contentType,
        width: m.width,
        height: m.height,
        caption: a.caption,
      });
    }
    return transaction(this.deps.pool, async (tx) => {
      const locked = await lockCertificateRow(tx, id);
      if (!locked) throw notFound('certificate', id);
      return insertRecord(tx, certificateFromRow(locked), {
        id: newId('serviceRecord'),
        certificateId: id,
        kind: parsed.kind,
        label: parsed.label,
        performedAt: parsed.performedAt.toISOString(),
        performer: parsed.performer,
        description: parsed.description,
        attachments,
        addedBy: { type: by.type as 'brand' | 'repairer', id: by.id },
      });
    });
  }

  /** Every record of the certificate (pending, accepted, refused): the brand's and the owner's view. */
  async list(p: Principal | undefined, certificateId: string | undefined): Promise<ServiceRecord[]> {
    const principal = requirePrincipal(p);
    const id = this.certificateIdOf(certificateId);
    const row = await certificateRow(this.deps.pool, id);
    if (!row) throw notFound('certificate', id);
    const by = await this.callerOf(principal, certificateFromRow(row), 'read');
    if (!by) throw notFound('certificate', id);
    return recordsOf(this.deps.pool, id);
  }

  /** The owner accepts or refuses a pending record; the decision is final. */
  async decide(
    p: Principal | undefined,
    req: { certificateId?: string; recordId?: string; decision?: string },
  ): Promise<{ record: ServiceRecord; read: CertificateRead }> {
    const principal = requirePrincipal(p);
    const id = this.certificateIdOf(req.certificateId);
    if (!req.recordId) throw missingParam('record_id');
    if (!isDecision(req.decision)) throw invalidParam('decision', 'decision must be "accept" or "refuse".');
    const status = req.decision === 'accept' ? 'accepted' : 'refused';
    const recordId = req.recordId;
    const record = await transaction(this.deps.pool, async (tx) => {
      const row = await lockCertificateRow(tx, id);
      if (!row) throw notFound('certificate', id);
      const cert = certificateFromRow(row);
      // The brand (and its repairers) add records but never decide them: that is the owner's word.
      if (principal.livemode === cert.livemode && principal.enterprise_id === cert.enterpriseId)
        throw new HallmarkError('insufficient_permissions', {
          message: 'Only the certificate’s owner accepts or refuses its service records.',
          extras: { required_permission: 'certificate:owner' },
        });
      const by = await this.callerOf(principal, cert, 'read');
      if (!by) throw notFound('certificate', id);
      const current = isId('serviceRecord', recordId) ? await lockRecord(tx, id, recordId) : undefined;
      if (!current) throw notFound('service_record', recordId);
      if (current.status !== 'pending') throw alreadyDecided(current);
      return decideRecord(tx, { ...cert, serviceHistory: row.service_history }, recordId, {
        status,
        by: by.id,
      });
    });
    return { record, read: await this.deps.certificates.getPublic(id) };
  }

  private certificateIdOf(id: string | undefined): string {
    if (!id) throw missingParam('certificate_id');
    if (!isId('certificate', id)) throw notFound('certificate', id);
    return id;
  }
}
