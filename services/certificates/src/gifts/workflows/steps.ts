// The side effects of the gift workflow, each idempotent so a repeated durable step (after a
// crash of this process or of Restate) changes nothing twice: the state read, the recipient's
// notification (notify's idempotency key per gift and send), the expiry (a DELETE conditional
// on `pending`), and the chain transfer (TransferService keyed by `gift:<id>[:<attempt>]`,
// recorded once per key, sent by the relayer's worker, final once confirmed).
import { HallmarkError, type Logger } from '@hallmark/kit';
import type { TransferService } from '../../transfers/service.js';
import { awaitingApproval, transferKeyOf, type GiftRecord, type GiftStatus } from '../domain/gift.js';
import type { GiftNotifier } from '../notifier.js';
import { giftOutcomes, type GiftService } from '../service.js';
import type { GiftStore } from '../store.js';
import type { CertificatesStore } from '../../store.js';

export interface GiftState {
  status: GiftStatus;
  expiresAtMs: number;
}

export type TransferOutcome = 'claimed' | 'released' | 'gone';

/** Thrown to have Restate run the transfer step again later (the transfer is on its way). */
export class NotYet extends Error {}

/** Refusals no new attempt can change (e.g. the sender no longer holds the token). */
const FINAL = new Set([
  'validation_failed',
  'resource_not_found',
  'parameter_invalid',
  'resource_locked',
  'certificate_reported_stolen',
]);

export interface GiftStepsDeps {
  gifts: GiftStore;
  service: GiftService;
  transfers: TransferService;
  certificates: CertificatesStore;
  notifier: GiftNotifier;
  /** Failed chain transfers of one claim before the gift is released (pending again). */
  maxAttempts: number;
  log: Logger;
}

export class GiftSteps {
  constructor(private readonly deps: GiftStepsDeps) {}

  async state(id: string): Promise<GiftState | null> {
    const g = await this.deps.gifts.find(id);
    return g ? { status: g.status, expiresAtMs: g.expiresAt.getTime() } : null;
  }

  /** The first notification (send number 0), only while the gift is pending. */
  async notifyCreated(id: string): Promise<string[]> {
    const g = await this.deps.gifts.find(id);
    // A resale waiting for the brand: the buyer is e-mailed when it is approved (resale-service.ts).
    if (!g || g.status !== 'pending' || awaitingApproval(g)) return [];
    return this.deps.service.notifyRecipient(g, 0);
  }

  /** The notification step stopped retrying: the gift says `failed` (its last error kept) until a resend. */
  async notificationFailed(id: string): Promise<void> {
    await this.deps.gifts.recordNotification(id, 'failed', null);
  }

  /**
   * Removes the gift if it is still pending. Answers what the sender's notice needs (null when
   * a claim or revoke won, or there is no sender e-mail to tell).
   */
  async expire(id: string): Promise<{ removed: boolean; notice: ExpiryNotice | null }> {
    const contacts = await this.deps.gifts.contacts(id);
    const removed = await this.deps.gifts.expire(id);
    if (!removed) return { removed: false, notice: null };
    giftOutcomes().inc({ outcome: 'expired' });
    this.deps.log.info({ gift: id }, 'gift expired unclaimed and was removed');
    if (!contacts?.senderEmail) return { removed: true, notice: null };
    const cert = await this.deps.certificates.getPublic(removed.certificateId);
    return {
      removed: true,
      notice: {
        id: removed.id,
        enterpriseId: removed.enterpriseId,
        livemode: removed.livemode,
        creatorId: removed.creatorId,
        message: removed.message,
        expiresAt: removed.expiresAt.toISOString(),
        senderEmail: contacts.senderEmail,
        certificateName: cert.certificate.name,
        kind: removed.kind,
      },
    };
  }

  async notifySender(n: ExpiryNotice): Promise<void> {
    const g = { ...n, expiresAt: new Date(n.expiresAt) } as unknown as GiftRecord;
    await this.deps.notifier.notifySenderExpired(g, n.senderEmail, n.certificateName);
  }

  /**
   * Drives a claiming gift's chain transfer to its end: records the transfer of the current
   * attempt (once per key), and answers when it is confirmed (gift `claimed`) or refused for
   * good (gift released). Throws NotYet while the transfer is on its way, and moves to the next
   * attempt (a new key) when one failed.
   */
  async transfer(id: string): Promise<TransferOutcome> {
    const { gifts, transfers } = this.deps;
    const g = await gifts.find(id);
    if (!g || g.status === 'pending' || g.status === 'revoked') return 'gone';
    if (g.status === 'claimed') return 'claimed';
    const key = transferKeyOf(g.id, g.transferAttempt);
    const t = await gifts.transferOf(g, key);
    if (!t) {
      try {
        await transfers.request(
          { enterpriseId: g.enterpriseId, livemode: g.livemode, actorId: g.claimedBy ?? '' },
          {
            handover: { kind: 'gift', id: g.id },
            certificateId: g.certificateId,
            idempotencyKey: key,
            toAddress: g.recipientAddress!,
          },
        );
      } catch (err) {
        if (!(err instanceof HallmarkError) || !FINAL.has(err.code)) throw err;
        this.deps.log.warn({ gift: id, err }, 'gift transfer refused; the gift is pending again');
        await gifts.release(id);
        giftOutcomes().inc({ outcome: 'released' });
        return 'released';
      }
      throw new NotYet(`gift ${id}: transfer ${key} recorded`);
    }
    if (t.status === 'confirmed') {
      await gifts.markClaimed(id, t.txHash!, t.block);
      giftOutcomes().inc({ outcome: 'claimed' });
      return 'claimed';
    }
    if (t.status === 'failed') {
      if (g.transferAttempt + 1 >= this.deps.maxAttempts) {
        this.deps.log.warn({ gift: id }, 'gift transfer kept failing; the gift is pending again');
        await gifts.release(id);
        giftOutcomes().inc({ outcome: 'released' });
        return 'released';
      }
      await gifts.nextAttempt(id);
      throw new NotYet(`gift ${id}: transfer ${key} failed; next attempt`);
    }
    throw new NotYet(`gift ${id}: transfer ${key} is ${t.status}`);
  }
}

export interface ExpiryNotice {
  id: string;
  enterpriseId: string;
  livemode: boolean;
  creatorId: string;
  message: string | null;
  expiresAt: string;
  senderEmail: string;
  certificateName: string;
  kind: GiftRecord['kind'];
}
