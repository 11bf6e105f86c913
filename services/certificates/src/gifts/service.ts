// Gift use cases: create (record + start the workflow), resend, revoke, the public view of a
// claim link, and the claim (take the token once, wake the workflow, wait a bounded time for
// its transfer). The chain side and the expiry run in the workflow (workflows/gift.ts).
import { counter, HallmarkError, isId, newId, notFound, startAndRecord, type Logger } from '@hallmark/kit';
import type { Principal } from '@hallmark/proto/common/v1/common';
import { getAddress } from 'ethers';
import type { CertificateRecord, Scope } from '../domain/certificate.js';
import { parsePage, type Page } from '@hallmark/kit/page';
import type { CertificatesStore } from '../store.js';
import type { WalletRecord, WalletStore } from '../wallets/store.js';
import { assertTransferable } from '../domain/transferable.js';
import {
  assertCreator,
  awaitingApproval,
  type Approval,
  type CreateGiftInput,
  type GiftKind,
  claimDecision,
  claimTokenHash,
  expiryOf,
  invalidToken,
  isClaimToken,
  isExpired,
  notificationError,
  notPending,
  parseCreateGift,
  parseStatusFilter,
  publicStatus,
  type GiftRecord,
} from './domain/gift.js';
import type { GiftNotifier } from './notifier.js';
import type { GiftStore } from './store.js';
import type { ClaimTokens } from './tokens.js';

/** Gifts reaching an outcome: claimed, released (transfer refused), expired, revoked. */
export const giftOutcomes = () =>
  counter(
    'hallmark_gift_outcomes_total',
    'Gifts reaching an outcome (claimed, released, expired, revoked)',
    ['outcome'],
    {
      known: [
        { outcome: 'claimed' },
        { outcome: 'released' },
        { outcome: 'expired' },
        { outcome: 'revoked' },
      ],
    },
  );

/**
 * What the service needs of the gift workflow: start it and send it signals. Declared here
 * and implemented by workflows/ingress.ts (Restate's ingress), so the service names no
 * workflow module and the workflow's steps can call the service without a circle.
 */
export interface GiftWorkflowIngress {
  start(giftId: string): Promise<void>;
  signal(giftId: string, signal: 'claim' | 'revoke'): Promise<void>;
}

export interface GiftServiceDeps {
  gifts: GiftStore;
  certificates: CertificatesStore;
  wallets: WalletStore;
  notifier: GiftNotifier;
  tokens: ClaimTokens;
  ingress: GiftWorkflowIngress;
  ttlHours: number;
  publicUrl: string;
  log: Logger;
}

export interface CreateGiftRequest {
  certificateId?: string;
  recipientEmail?: string;
  recipientPhone?: string;
  message?: string;
  senderEmail?: string;
}

export interface GiftView {
  gift: GiftRecord;
  certificate: CertificateRecord;
  /** The status a claim link's page shows: `unavailable` for a pending gift whose certificate
   * is in another hand-over or no longer with the sender (a claim would be refused). */
  status: string;
}

const refused = (message: string) =>
  new HallmarkError('validation_failed', { param: 'certificateId', message });

export class GiftService {
  constructor(private readonly deps: GiftServiceDeps) {
    giftOutcomes(); // every outcome at 0 from the start
  }

  claimUrl(token: string): string {
    return `${this.deps.publicUrl.replace(/\/+$/, '')}/claim/${token}`;
  }

  /**
   * Records a pending gift and starts its workflow. `as` makes it a resale (resale-service.ts):
   * parsed by the caller, left only from the sender's own user wallet, maybe awaiting the brand.
   */
  async create(
    scope: Scope,
    principal: Principal,
    req: CreateGiftRequest,
    as?: { kind: 'resale'; input: CreateGiftInput; approval: Approval | null },
  ) {
    const input = as?.input ?? parseCreateGift(req);
    const id = newId('gift');
    const token = this.deps.tokens.issue(id);
    const gift = await this.deps.gifts.create(
      scope,
      {
        ...input,
        id,
        tokenHash: claimTokenHash(token),
        creatorId: scope.actorId,
        senderEmail: req.senderEmail || null,
        expiresAt: expiryOf(new Date(), this.deps.ttlHours),
        kind: as?.kind ?? 'gift',
        approval: as?.approval ?? null,
      },
      (cert) => this.senderOf(cert, principal, as?.kind ?? 'gift'),
    );
    await this.startWorkflow(gift.id);
    return { gift, token };
  }

  /** Starts the gift's workflow; when Restate is unreachable the starter worker retries. */
  startWorkflow(id: string): Promise<boolean> {
    const { ingress, gifts, log } = this.deps;
    return startAndRecord(
      log,
      { gift: id },
      () => ingress.start(id),
      () => gifts.markStarted(id),
    );
  }

  /**
   * The address the gift leaves from: the certificate's holder, when it is a custodial wallet
   * the sender may sign with (the enterprise's holding wallet, or a user session's own wallet).
   */
  private async senderOf(cert: CertificateRecord, principal: Principal, kind: GiftKind): Promise<string> {
    if (cert.status === 'burned') throw refused('This certificate is burned.');
    if (cert.status !== 'minted' || cert.tokenId === null)
      throw refused(`Only a minted certificate can be gifted (this one is ${cert.status}).`);
    assertTransferable(
      cert,
      'certificateId',
      kind === 'resale' ? 'it cannot be resold' : 'it cannot be gifted',
    );
    const holder = await this.deps.wallets.byAddress(cert.holderAddress);
    if (!holder) {
      throw new HallmarkError('sender_credential_missing', {
        message: 'The certificate is held by an address Hallmark holds no signing key for.',
      });
    }
    if (!this.maySend(holder, principal))
      throw refused("The certificate is not held by the sender's custodial wallet.");
    // A resale is an owner's: their own wallet, never the enterprise's holding wallet.
    if (kind === 'resale' && holder.ownerKind !== 'user')
      throw refused("Only a certificate in the owner's own wallet can be resold.");
    return getAddress(holder.address);
  }

  private maySend(w: WalletRecord, p: Principal): boolean {
    if (w.enterpriseId !== p.enterprise_id) return false;
    if (w.ownerKind === 'enterprise') return w.ownerId === p.enterprise_id;
    return p.actor_type === 'user' && w.ownerId === p.actor_id;
  }

  async get(scope: Scope, id: string): Promise<GiftRecord> {
    if (!isId('gift', id)) throw notFound('gift', id);
    return this.deps.gifts.get(scope, id);
  }

  /** A page of the scope's gifts, newest first (ListGifts). */
  async list(
    scope: Scope,
    q: { status?: string; page?: { page?: number; limit?: number } },
  ): Promise<{ gifts: GiftRecord[]; page: Page; total: number }> {
    const status = parseStatusFilter(q.status);
    const page = parsePage(q.page);
    const { gifts, total } = await this.deps.gifts.list(scope, status, page.page, page.limit);
    return { gifts, page, total };
  }

  async resend(scope: Scope, id: string): Promise<{ gift: GiftRecord; methods: string[] }> {
    const g = await this.get(scope, id);
    assertCreator(g, scope.actorId);
    if (g.status !== 'pending' || isExpired(g, new Date()) || awaitingApproval(g)) throw notPending(g);
    const n = await this.deps.gifts.countResend(id);
    return { gift: g, methods: await this.notifyRecipient(g, n) };
  }

  /** Sends the claim link (send number `n`: 0 at create, then each resend). */
  async notifyRecipient(g: GiftRecord, n: number): Promise<string[]> {
    const contacts = await this.deps.gifts.contacts(g.id);
    if (!contacts) return [];
    const token = this.deps.tokens.recover(g.id, g.tokenHash);
    if (!token) throw new Error(`gift ${g.id}: no configured key derives its claim token`);
    const cert = await this.deps.certificates.getPublic(g.certificateId);
    try {
      const used = await this.deps.notifier.notifyRecipient(
        g,
        contacts,
        {
          claimUrl: this.claimUrl(token),
          certificateName: cert.certificate.name,
          message: g.message,
          expiresAt: g.expiresAt,
        },
        n,
      );
      await this.deps.gifts.recordNotification(g.id, 'sent', null);
      return used;
    } catch (err) {
      // Shown on the gift while the send is retried, rather than a silent `pending`.
      const error = notificationError(err, [contacts.email, contacts.phone]);
      await this.deps.gifts.recordNotification(g.id, 'failing', error);
      throw err;
    }
  }

  async revoke(scope: Scope, id: string): Promise<GiftRecord> {
    const g = await this.get(scope, id);
    assertCreator(g, scope.actorId);
    if (g.status === 'revoked') return g;
    const revoked = await this.deps.gifts.revoke(id);
    if (!revoked) throw notPending((await this.deps.gifts.find(id)) ?? g);
    giftOutcomes().inc({ outcome: 'revoked' });
    await this.deps.ingress.signal(id, 'revoke').catch((err: unknown) => {
      this.deps.log.warn({ err, gift: id }, 'revoke signal not delivered; the workflow rechecks');
    });
    return revoked;
  }

  /** The public view of a claim link (any status; unknown → not found). */
  async view(token: string): Promise<GiftView> {
    const g = isClaimToken(token) ? await this.deps.gifts.byTokenHash(claimTokenHash(token)) : null;
    if (!g) throw invalidToken();
    const { certificate } = await this.deps.certificates.getPublic(g.certificateId);
    let status = publicStatus(g, new Date());
    if (status === 'pending' && !(await this.deps.gifts.certificateFree(g))) status = 'unavailable';
    return { gift: g, certificate, status };
  }

  async claim(principal: Principal | undefined, token: string, waitMs: number) {
    if (principal?.actor_type !== 'user' || !isId('user', principal.actor_id) || !principal.enterprise_id) {
      throw new HallmarkError('insufficient_permissions', {
        message: 'A gift is claimed by its recipient, signed in with a user session.',
        extras: { required_permission: 'user_session' },
      });
    }
    const userId = principal.actor_id;
    const found = isClaimToken(token) ? await this.deps.gifts.byTokenHash(claimTokenHash(token)) : null;
    if (!found || found.livemode !== principal.livemode) throw invalidToken();
    const decision = claimDecision(found, userId, new Date());
    if (decision instanceof HallmarkError) throw decision;
    let replayed = decision === 'replay';
    if (decision === 'take') {
      const wallet = (await this.deps.wallets.ensureUser(userId, principal.enterprise_id)).wallet;
      const taken = await this.deps.gifts.take(found.id, userId, wallet.address);
      if (!taken) {
        // Another claim (or a revoke, or the expiry) won the race.
        const now = await this.deps.gifts.find(found.id);
        if (!now || now.claimedBy !== userId) throw invalidToken();
        replayed = true;
      }
    }
    await this.deps.ingress.signal(found.id, 'claim').catch((err: unknown) => {
      this.deps.log.warn({ err, gift: found.id }, 'claim signal not delivered; the workflow rechecks');
    });
    return { gift: await this.waitClaimed(found.id, waitMs), replayed };
  }

  private async waitClaimed(id: string, waitMs: number): Promise<GiftRecord> {
    const until = Date.now() + waitMs;
    for (;;) {
      const g = await this.deps.gifts.find(id);
      if (!g) throw invalidToken();
      if (g.status !== 'claiming' || Date.now() >= until) return g;
      await new Promise((r) => setTimeout(r, 150));
    }
  }
}
