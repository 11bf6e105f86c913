// The certificate-voucher use cases behind CertificateVoucherService: create a request's
// vouchers, read one publicly with its certificate, void an order's unclaimed ones, and claim
// one (the claim itself is ./claim.ts).
import { HallmarkError, missingParam } from '@hallmark/kit';
import type { Principal } from '@hallmark/proto/common/v1/common';
import { metadataView, type Scope } from '../domain/certificate.js';
import type { CertificatesStore } from '../store.js';
import type { ClaimResult, CertificateVoucherClaims } from './claim.js';
import { MAX_VOUCHER_ITEMS, parseCreateVouchers, type RawVoucherItem, type VoucherRecord } from './domain.js';
import type { CreatedVouchers, CertificateVoucherStore } from './store.js';

export interface CertificateVoucherServiceDeps {
  vouchers: CertificateVoucherStore;
  certificates: CertificatesStore;
  /** Claims (custodial wallets and transfers); unset: ClaimVoucher answers unavailable. */
  claims?: CertificateVoucherClaims;
}

/** The certificate of a voucher as GetPublicCertificate shows it, without its provenance. */
export interface VoucherCertificateView {
  id: string;
  name: string;
  imageUrl: string | null;
  metadata: Record<string, unknown>;
  status: string;
  tokenId: number | null;
  transactionHash: string | null;
  blockNumber: number | null;
}

export class CertificateVoucherService {
  constructor(private readonly deps: CertificateVoucherServiceDeps) {}

  create(scope: Scope, req: { idempotencyKey?: string; items?: RawVoucherItem[] }): Promise<CreatedVouchers> {
    return this.deps.vouchers.create(scope, parseCreateVouchers(req));
  }

  /** A voucher by id or reference number (as typed), with its certificate; no principal. */
  async getPublic(
    idOrReference: string,
  ): Promise<{ voucher: VoucherRecord; certificate: VoucherCertificateView }> {
    if (!idOrReference) throw missingParam('voucher_id');
    const voucher = await this.deps.vouchers.find(idOrReference);
    const { certificate: c } = await this.deps.certificates.getPublic(voucher.certificateId);
    return {
      voucher,
      certificate: {
        id: c.id,
        name: c.name,
        imageUrl: c.imageUrl,
        metadata: metadataView(c),
        status: c.status,
        tokenId: c.tokenId === null ? null : Number(c.tokenId),
        transactionHash: c.transactionHash,
        blockNumber: c.blockNumber,
      },
    };
  }

  /** Voids the enterprise's unclaimed vouchers among `ids` (a cancelled order). */
  async void(scope: Scope, ids: string[], reason: string): Promise<{ voided: string[]; claimed: string[] }> {
    if (ids.length === 0) return { voided: [], claimed: [] };
    if (ids.length > MAX_VOUCHER_ITEMS * 50) {
      throw new HallmarkError('parameter_invalid', { param: 'voucher_ids', message: 'Too many vouchers.' });
    }
    return this.deps.vouchers.void(scope, ids, (reason || 'The order was cancelled.').slice(0, 200));
  }

  claim(
    principal: Principal | undefined,
    voucherId: string,
    recipientEmail: string | null,
  ): Promise<ClaimResult> {
    if (!voucherId) throw missingParam('voucher_id');
    if (!this.deps.claims) {
      throw new HallmarkError('service_unavailable', { message: 'Claiming vouchers is not available.' });
    }
    return this.deps.claims.claim(principal, voucherId, recipientEmail);
  }
}
