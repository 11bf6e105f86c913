// Claiming a certificate voucher: the recipient (a user session) gets the certificate's token
// in their own custodial wallet.
//
// 1. The refusals first, without a lock (unknown, of the other mode, claimed by someone else,
//    expired, another recipient's e-mail, not minted yet), so a refused claim creates nothing,
//    not even a wallet.
// 2. The recipient's wallet: keyed by the user id alone and created in the user's OWN
//    enterprise (their session's), so a recipient has one wallet whichever enterprise issued
//    the voucher (WalletStore.ensureUser).
// 3. Under the voucher's row lock, the claim is recorded (recipient, wallet, transfer key
//    `claim:<voucher id>`, `claimed` provenance entry) in one transaction, the same checks
//    made again. Only one recipient can win a race.
// 4. The existing TransferService moves the token from the issuer's holding wallet to the
//    recipient's wallet (in the issuer's scope, actor = the recipient), keyed by the transfer
//    key, and waits a bounded time for its confirmation (`transferred` provenance entry and
//    certificate.transferred come from there).
// The same recipient claiming again answers the same claim (replayed) and, because the
// transfer key is idempotent, also completes a claim whose step 4 was cut short by a crash.
//
// Never half-done: a claim whose transfer fails (the chain refused or reverted it) is sent
// again under a new key `claim:<voucher id>:<attempt>` at once, and by the repair pass of the
// mint worker (repairPass) for claims whose transfer failed or was never recorded (a crash
// between steps 3 and 4). After `maxAttempts`, or when the issuer no longer holds the token,
// the claim is undone: the voucher is claimable again and provenance says `claim_reverted`.
import { HallmarkError, isId, notFound, type Logger } from '@hallmark/kit';
import type { Principal } from '@hallmark/proto/common/v1/common';
import type { Scope } from '../domain/certificate.js';
import type { TransferResult, TransferService } from '../transfers/service.js';
import type { WalletStore } from '../wallets/store.js';
import { claimRefusal, type VoucherRecord } from './domain.js';
import type { CertificateVoucherStore } from './store.js';

export interface ClaimResult {
  voucher: VoucherRecord;
  transfer: TransferResult['transfer'];
  replayed: boolean;
}

export interface CertificateVoucherClaimsDeps {
  store: CertificateVoucherStore;
  wallets: WalletStore;
  transfers: TransferService;
  /** Transfer attempts of one claim before it is undone (default 5). */
  maxAttempts?: number;
  log?: Logger;
}

/** Refusals that a new attempt cannot change: the claim is undone instead. */
const FINAL = new Set([
  'validation_failed',
  'resource_not_found',
  'parameter_invalid',
  'resource_locked',
  'certificate_reported_stolen',
]);

const scopeOf = (v: VoucherRecord): Scope => ({
  enterpriseId: v.enterpriseId,
  livemode: v.livemode,
  actorId: v.claimedBy ?? '',
});

export class CertificateVoucherClaims {
  constructor(private readonly deps: CertificateVoucherClaimsDeps) {}

  private get maxAttempts() {
    return this.deps.maxAttempts ?? 5;
  }

  async claim(
    principal: Principal | undefined,
    voucherId: string,
    sessionEmail: string | null,
  ): Promise<ClaimResult> {
    if (principal?.actor_type !== 'user' || !isId('user', principal.actor_id) || !principal.enterprise_id) {
      throw new HallmarkError('insufficient_permissions', {
        message: 'A voucher is claimed by its recipient, signed in with a user session.',
        extras: { required_permission: 'user_session' },
      });
    }
    const { store, wallets, transfers } = this.deps;
    const userId = principal.actor_id;
    const found = await store.find(voucherId);
    // Test mode stays test mode: a live session never sees a test-mode voucher, nor a test-mode
    // session (Hallmark-Mode: test) a live one. Answered exactly like an unknown voucher.
    if (found.livemode !== principal.livemode) throw notFound('voucher', voucherId);
    // Every refusal before anything is written (made again under the lock below).
    const early = claimRefusal(found, {
      userId,
      email: sessionEmail,
      recipientEmail: await store.claims.recipientEmail(found.id),
    });
    if (early instanceof HallmarkError) throw early;

    const wallet = (await wallets.ensureUser(userId, principal.enterprise_id)).wallet;
    const { voucher, replay } = await store.claims.claim(
      found.id,
      { userId, enterpriseId: principal.enterprise_id, email: sessionEmail, toAddress: wallet.address },
      async (address, enterpriseId) => (await wallets.byAddress(address))?.enterpriseId === enterpriseId,
    );
    let { transfer } = await transfers.transfer(scopeOf(voucher), this.transferOf(voucher));
    if (transfer.status === 'failed') {
      // One more attempt at once; the repair pass keeps going if this one fails too.
      const next = await this.repair(voucher, 'failed');
      if (next === 'undone') {
        throw new HallmarkError('validation_failed', {
          param: 'voucher_id',
          message: 'The certificate could not be transferred; the voucher was not claimed.',
        });
      }
      const current = await store.find(voucher.id);
      ({ transfer } = await transfers.transfer(scopeOf(current), this.transferOf(current)));
    }
    return { voucher, transfer, replayed: replay };
  }

  /**
   * One pass over claims whose transfer failed or was never recorded (run by the mint
   * worker, so one replica at a time). Returns how many it moved on.
   */
  async repairPass(limit = 50): Promise<number> {
    // Confirmed claims leave the set the pass reads, so it stays as small as the open claims.
    await this.deps.store.claims.settleConfirmedClaims();
    let moved = 0;
    for (const { voucher, transfer } of await this.deps.store.claims.claimsToRepair(limit)) {
      try {
        if (await this.repair(voucher, transfer)) moved++;
      } catch (err) {
        this.deps.log?.warn({ err, voucher: voucher.id }, 'voucher claims: repair failed; will retry');
      }
    }
    return moved;
  }

  /** Sends a claim's transfer again (or for the first time), or undoes the claim. */
  private async repair(
    voucher: VoucherRecord,
    transfer: 'failed' | 'missing',
  ): Promise<'retry' | 'undone' | null> {
    const { store, transfers } = this.deps;
    let current = voucher;
    if (transfer === 'failed') {
      const next = await store.claims.nextClaimAttempt(
        voucher.id,
        voucher.claimTransferKey!,
        this.maxAttempts,
      );
      if (!next) return null;
      if (next.action === 'undone') {
        this.deps.log?.warn({ voucher: voucher.id }, 'voucher claims: transfer kept failing; claim undone');
        return 'undone';
      }
      current = next.voucher;
    }
    try {
      await transfers.request(scopeOf(current), this.transferOf(current));
      return 'retry';
    } catch (err) {
      if (!(err instanceof HallmarkError) || !FINAL.has(err.code)) throw err;
      // The chain side refuses for good (e.g. the issuer no longer holds the token).
      await store.claims.undo(current.id, current.claimTransferKey!);
      this.deps.log?.warn({ voucher: voucher.id, err }, 'voucher claims: transfer refused; claim undone');
      return 'undone';
    }
  }

  private transferOf(v: VoucherRecord) {
    return {
      handover: { kind: 'voucher' as const, id: v.id },
      certificateId: v.certificateId,
      idempotencyKey: v.claimTransferKey!,
      toAddress: v.claimToAddress!,
    };
  }
}
