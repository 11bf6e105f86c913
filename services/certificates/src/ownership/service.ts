// Proof-of-ownership links and export to the owner's own wallet (docs/resale.md). The owner is
// a user session whose custodial wallet (of the certificate's enterprise) holds the certificate.
import { HallmarkError, isId, newId } from '@hallmark/kit';
import type { Principal } from '@hallmark/proto/common/v1/common';
import type { CertificateRecord, Scope } from '../domain/certificate.js';
import { assertTransferable } from '../domain/transferable.js';
import type { CertificatesStore } from '../store.js';
import type { TransferService } from '../transfers/service.js';
import type { WalletStore } from '../wallets/store.js';
import {
  assertExportSigned,
  assertImportSigned,
  contractPermitDomain,
  importTypedData,
  EXPORT_DEADLINE_SECONDS,
  exportDomain,
  exportTypedData,
  invalidLink,
  isLinkToken,
  linkTokenHash,
  linkTtlHours,
  newLinkToken,
  parseDestination,
  proofStatus,
  type ExportMessage,
  type ImportMessage,
} from './domain.js';
import type { OwnershipStore } from './store.js';

/** What export needs of the chain: where to sign for, and the token's current permit nonce. */
export interface ExportChain {
  chainId: bigint;
  contractAddress: string;
  nonceOf(tokenId: bigint): Promise<bigint>;
}

export interface OwnershipServiceDeps {
  links: OwnershipStore;
  certificates: CertificatesStore;
  wallets: WalletStore;
  transfers: TransferService | null;
  chain: () => ExportChain | null;
}

const notOwner = () =>
  new HallmarkError('validation_failed', {
    param: 'certificateId',
    message: "The certificate is not held by the signed-in owner's custodial wallet.",
  });

function assertUser(p: Principal | undefined): asserts p is Principal {
  if (p?.actor_type !== 'user' || !isId('user', p.actor_id)) {
    throw new HallmarkError('insufficient_permissions', {
      message: 'Only the owner, signed in with a user session, can do this.',
      extras: { required_permission: 'user_session' },
    });
  }
}

export class OwnershipService {
  constructor(private readonly deps: OwnershipServiceDeps) {}

  /** The certificate of the scope, held by the principal's own custodial wallet (else refused). */
  private async owned(scope: Scope, principal: Principal, certificateId: string): Promise<CertificateRecord> {
    assertUser(principal);
    const { certificate } = await this.deps.certificates.get(scope, certificateId);
    const holder = await this.deps.wallets.byAddress(certificate.holderAddress);
    if (
      !holder ||
      holder.ownerKind !== 'user' ||
      holder.ownerId !== principal.actor_id ||
      holder.enterpriseId !== principal.enterprise_id
    )
      throw notOwner();
    return certificate;
  }

  async createLink(scope: Scope, principal: Principal, certificateId: string, ttlHours: number) {
    const ttl = linkTtlHours(ttlHours);
    const cert = await this.owned(scope, principal, certificateId);
    if (cert.status !== 'minted') throw notOwner();
    const token = newLinkToken();
    const link = await this.deps.links.create(scope, {
      id: newId('ownershipLink'),
      certificateId: cert.id,
      holderAddress: cert.holderAddress,
      tokenHash: linkTokenHash(token),
      ttlHours: ttl,
    });
    return { link, token };
  }

  async revokeLink(scope: Scope, principal: Principal, id: string) {
    assertUser(principal);
    if (!isId('ownershipLink', id)) throw invalidLink();
    return this.deps.links.revoke(scope, id);
  }

  /** The public read of a link: what it proves now (certificate details only while it proves something). */
  async proof(token: string) {
    const link = isLinkToken(token) ? await this.deps.links.byTokenHash(linkTokenHash(token)) : null;
    if (!link) throw invalidLink();
    const { certificate } = await this.deps.certificates.getPublic(link.certificateId);
    const now = new Date();
    const status = proofStatus(link, certificate, now);
    return {
      link,
      status,
      now,
      certificate: status === 'owned' || status === 'transferred' ? certificate : null,
    };
  }

  private exportChain(): ExportChain {
    const chain = this.deps.chain();
    if (!chain || !this.deps.transfers)
      throw new HallmarkError('service_unavailable', { message: 'No chain is configured for exports.' });
    return chain;
  }

  private async exportMessage(cert: CertificateRecord, to: string, deadline: bigint): Promise<ExportMessage> {
    const chain = this.exportChain();
    const nonce = await chain.nonceOf(cert.tokenId!);
    return { certificateId: cert.id, tokenId: cert.tokenId!, to, nonce, deadline };
  }

  /** The typed data the owner signs with the destination wallet (valid for an hour). */
  async prepareExport(scope: Scope, principal: Principal, certificateId: string, toAddress: string) {
    const to = parseDestination(toAddress);
    const cert = await this.owned(scope, principal, certificateId);
    assertTransferable(cert, 'certificateId', 'it cannot be exported');
    const chain = this.exportChain();
    const deadline = BigInt(Math.floor(Date.now() / 1000) + EXPORT_DEADLINE_SECONDS);
    const m = await this.exportMessage(cert, to, deadline);
    return exportTypedData(exportDomain(chain.chainId, chain.contractAddress), m);
  }

  /**
   * Checks the destination wallet's signature, then has the custodian move the token there by
   * the holder-signed permit path (a transfer keyed by the token's nonce: a repeat is the same
   * transfer, and the signature is spent once the token moves). Waits a bounded time.
   */
  async export(
    scope: Scope,
    principal: Principal,
    req: { certificateId: string; toAddress: string; deadline: bigint; signature: string },
  ) {
    const to = parseDestination(req.toAddress);
    const cert = await this.owned(scope, principal, req.certificateId);
    assertTransferable(cert, 'certificateId', 'it cannot be exported');
    const chain = this.exportChain();
    const m = await this.exportMessage(cert, to, req.deadline);
    assertExportSigned(
      exportDomain(chain.chainId, chain.contractAddress),
      m,
      req.signature,
      Math.floor(Date.now() / 1000),
    );
    const { transfer, replayed } = await this.deps.transfers!.transfer(scope, {
      certificateId: cert.id,
      idempotencyKey: `export:${cert.id}:${m.nonce}`,
      toAddress: to,
    });
    return { transfer, replayed, to };
  }

  /**
   * The certificate of the scope held outside custody (after an export), and the permit the
   * import needs: a TransferPermit to the caller's own custodial wallet (created if needed).
   */
  private async importMessage(scope: Scope, principal: Principal, certificateId: string, deadline: bigint) {
    assertUser(principal);
    const { certificate } = await this.deps.certificates.get(scope, certificateId);
    assertTransferable(certificate, 'certificateId', 'it cannot be imported');
    if (await this.deps.wallets.byAddress(certificate.holderAddress)) {
      throw new HallmarkError('validation_failed', {
        param: 'certificateId',
        message:
          'The certificate is already in custody; only a certificate held in an outside wallet is imported.',
      });
    }
    const chain = this.exportChain();
    const wallet = (await this.deps.wallets.ensureUser(principal.actor_id, principal.enterprise_id)).wallet;
    const m: ImportMessage = {
      to: wallet.address,
      tokenId: certificate.tokenId!,
      nonce: await chain.nonceOf(certificate.tokenId!),
      deadline,
    };
    return { certificate, m, domain: contractPermitDomain(chain.chainId, chain.contractAddress) };
  }

  /** The contract's TransferPermit the outside wallet signs to bring the certificate back (an hour). */
  async prepareImport(scope: Scope, principal: Principal, certificateId: string) {
    const deadline = BigInt(Math.floor(Date.now() / 1000) + EXPORT_DEADLINE_SECONDS);
    const { m, domain } = await this.importMessage(scope, principal, certificateId, deadline);
    return importTypedData(domain, m);
  }

  /**
   * Checks that the holder (the outside wallet the certificate is recorded at) signed the
   * permit to the caller's custodial wallet, then has the relayer submit it (keyed by the
   * token's nonce: a repeat is the same transfer). Waits a bounded time.
   */
  async import(
    scope: Scope,
    principal: Principal,
    req: { certificateId: string; deadline: bigint; signature: string },
  ) {
    const { certificate, m, domain } = await this.importMessage(
      scope,
      principal,
      req.certificateId,
      req.deadline,
    );
    assertImportSigned(domain, m, req.signature, certificate.holderAddress, Math.floor(Date.now() / 1000));
    const { transfer, replayed } = await this.deps.transfers!.transfer(scope, {
      certificateId: certificate.id,
      idempotencyKey: `import:${certificate.id}:${m.nonce}`,
      toAddress: m.to,
      permit: { signature: req.signature, deadline: req.deadline },
    });
    return { transfer, replayed, to: m.to };
  }
}
