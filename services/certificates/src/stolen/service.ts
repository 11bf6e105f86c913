// Lost and stolen use cases (docs/lost-and-stolen.md): report, clear, list, the clearing
// policy, and the brand's recovery of a token to a new owner.
//
// Who the caller is comes from the principal and the certificate, never from the request:
// - the brand: a principal of the certificate's enterprise and mode;
// - the owner: a user session whose own custodial wallet holds the certificate (the identity
//   the voucher and gift claim pages sign in);
// - anyone else: not found, exactly as an unknown certificate (tenants never learn more).
import {
  HallmarkError,
  invalidParam,
  isId,
  missingParam,
  notFound,
  requirePrincipal,
  transaction,
  type Pool,
  type Queryable,
} from '@hallmark/kit';
import type { Principal } from '@hallmark/proto/common/v1/common';
import { certificateFromRow } from '../certificate-rows.js';
import type { CertificateRecord, Scope } from '../domain/certificate.js';
import {
  isClearedBy,
  isStolenKind,
  mayClear,
  parseReason,
  reportedStolenRefused,
  type ReporterType,
  type StolenClearedBy,
  type StolenReportRecord,
} from '../domain/stolen.js';
import { clearReport, openReport, reportsOf } from '../stolen-store.js';
import type { CertificateRead, CertificatesStore } from '../store.js';
import type { TransferResult, TransferService } from '../transfers/service.js';
import type { WalletStore } from '../wallets/store.js';
import { certificateById, lockCertificateById, policyOf, setPolicy } from './store.js';

export interface StolenServiceDeps {
  pool: Pool;
  certificates: CertificatesStore;
  /** Null when the service runs without custodial wallets (then only the brand is known). */
  wallets: WalletStore | null;
  /** Null without a chain: recovery is unavailable. */
  transfers: TransferService | null;
}

export interface Actor {
  type: ReporterType;
  id: string;
}

export interface RecoverInput {
  certificateId?: string;
  idempotencyKey?: string;
  toUserId?: string;
  toAddress?: string;
  reason?: string;
}

const scopeOfCert = (c: CertificateRecord, actorId: string): Scope => ({
  enterpriseId: c.enterpriseId,
  livemode: c.livemode,
  actorId,
});

const brandOnly = (what: string) =>
  new HallmarkError('insufficient_permissions', {
    message: `Only the brand that issued the certificate may ${what}.`,
    extras: { required_permission: 'transactions.update' },
  });

export class StolenService {
  constructor(private readonly deps: StolenServiceDeps) {}

  /** The brand, the owner, or null (anyone else) for this certificate. */
  async actorOf(principal: Principal, cert: CertificateRecord): Promise<Actor | null> {
    if (principal.livemode !== cert.livemode) return null;
    if (principal.enterprise_id === cert.enterpriseId)
      return { type: 'brand', id: principal.actor_id || principal.enterprise_id };
    if (principal.actor_type !== 'user' || !isId('user', principal.actor_id) || !this.deps.wallets)
      return null;
    const w = await this.deps.wallets.byAddress(cert.holderAddress);
    return w && w.ownerKind === 'user' && w.ownerId === principal.actor_id
      ? { type: 'owner', id: principal.actor_id }
      : null;
  }

  async report(
    p: Principal | undefined,
    req: { certificateId?: string; kind?: string; reason?: string },
  ): Promise<{ report: StolenReportRecord; read: CertificateRead }> {
    const principal = requirePrincipal(p);
    const id = this.certificateIdOf(req.certificateId);
    if (!isStolenKind(req.kind)) throw invalidParam('kind', 'kind must be "stolen" or "lost".');
    const kind = req.kind;
    const reason = parseReason(req.reason);
    const report = await this.guarded(id, async (tx, cert) => {
      const by = await this.actorOf(principal, cert);
      if (!by) throw notFound('certificate', id);
      if (cert.status !== 'minted') {
        throw new HallmarkError('validation_failed', {
          param: 'certificate_id',
          message: `Only a minted certificate can be reported ${kind} (this one is ${cert.status}).`,
        });
      }
      if (cert.stolen)
        throw reportedStolenRefused(cert.id, cert.stolen, { doing: 'it cannot be reported again' });
      return openReport(tx, cert, { kind, reason, by });
    });
    return { report, read: await this.deps.certificates.getPublic(id) };
  }

  async clear(
    p: Principal | undefined,
    req: { certificateId?: string; reason?: string },
  ): Promise<{ report: StolenReportRecord; read: CertificateRead }> {
    const principal = requirePrincipal(p);
    const id = this.certificateIdOf(req.certificateId);
    const reason = parseReason(req.reason);
    const report = await this.guarded(id, async (tx, cert) => {
      const by = await this.actorOf(principal, cert);
      if (!by) throw notFound('certificate', id);
      if (!cert.stolen) {
        throw new HallmarkError('validation_failed', {
          param: 'certificate_id',
          message: 'The certificate has no open lost or stolen report to clear.',
        });
      }
      const policy = await policyOf(tx, cert.enterpriseId);
      if (!mayClear(policy, cert.stolen, by)) {
        throw new HallmarkError('insufficient_permissions', {
          message:
            policy === 'brand'
              ? 'Only the brand may clear this report (the brand’s policy).'
              : 'Only the brand or whoever reported it may clear this report (the brand’s policy).',
          extras: { required_permission: 'stolen.clear' },
        });
      }
      return (await clearReport(tx, cert, { by, reason }))!;
    });
    return { report, read: await this.deps.certificates.getPublic(id) };
  }

  /** The certificate's reports, newest first (the brand's view, reasons included). */
  async list(p: Principal | undefined, certificateId?: string): Promise<StolenReportRecord[]> {
    const principal = requirePrincipal(p);
    const id = this.certificateIdOf(certificateId);
    const row = await certificateById(this.deps.pool, id);
    if (!row) throw notFound('certificate', id);
    const cert = certificateFromRow(row);
    const by = await this.actorOf(principal, cert);
    if (!by) throw notFound('certificate', id);
    if (by.type !== 'brand') throw brandOnly('read its lost and stolen reports');
    return reportsOf(this.deps.pool, id);
  }

  /**
   * The brand moves the token to a new owner: a transfer with purpose `recovery` (allowed while
   * reported stolen; from any Hallmark custodial wallet; self-custody refused), waited for a
   * bounded time like Transfer. Its confirmation records `recovered` and clears the report.
   */
  async recover(p: Principal | undefined, req: RecoverInput): Promise<TransferResult> {
    const principal = requirePrincipal(p);
    const id = this.certificateIdOf(req.certificateId);
    const reason = parseReason(req.reason);
    const { transfers, wallets } = this.deps;
    if (!transfers || !wallets)
      throw new HallmarkError('service_unavailable', { message: 'No chain is configured for recovery.' });
    const row = await certificateById(this.deps.pool, id);
    if (!row) throw notFound('certificate', id);
    const cert = certificateFromRow(row);
    const by = await this.actorOf(principal, cert);
    if (!by) throw notFound('certificate', id);
    if (by.type !== 'brand') throw brandOnly('recover it to a new owner');
    if (req.toUserId && req.toAddress)
      throw invalidParam('to_address', 'Give either to_user_id or to_address, not both.');
    if (!req.toUserId && !req.toAddress) throw missingParam('to_user_id');
    if (req.toUserId && !isId('user', req.toUserId))
      throw invalidParam('to_user_id', 'to_user_id must be a user id.');
    // A user's one custodial wallet, wherever it was created (as a claim finds it).
    const toAddress = req.toUserId
      ? (await wallets.ensureUser(req.toUserId, cert.enterpriseId)).wallet.address
      : req.toAddress;
    return transfers.transfer(scopeOfCert(cert, by.id), {
      certificateId: id,
      idempotencyKey: req.idempotencyKey,
      toAddress,
      recovery: { reason },
    });
  }

  async getPolicy(p: Principal | undefined): Promise<StolenClearedBy> {
    return policyOf(this.deps.pool, requirePrincipal(p).enterprise_id);
  }

  async setPolicy(p: Principal | undefined, clearedBy: string): Promise<StolenClearedBy> {
    const principal = requirePrincipal(p);
    if (!isClearedBy(clearedBy))
      throw invalidParam('cleared_by', 'cleared_by must be "brand" or "brand_or_reporter".');
    await setPolicy(this.deps.pool, principal.enterprise_id, clearedBy);
    return clearedBy;
  }

  private certificateIdOf(id: string | undefined): string {
    if (!id) throw missingParam('certificate_id');
    if (!isId('certificate', id)) throw notFound('certificate', id);
    return id;
  }

  /** Runs `fn` on the certificate under its row lock; a racing second report is the same 409. */
  private async guarded<T>(
    id: string,
    fn: (tx: Queryable, cert: CertificateRecord) => Promise<T>,
  ): Promise<T> {
    return transaction(this.deps.pool, async (tx) => {
      const row = await lockCertificateById(tx, id);
      if (!row) throw notFound('certificate', id);
      return fn(tx, certificateFromRow(row));
    });
  }
}
