// Claiming a certificate voucher: the recipient (a user session) gets the certificate's token
// in their own custodial wallet.
//
// 1. The refusals first, without a lock (unknown, claimed by someone else, expired, another
//    recipient's e-mail, not minted yet), so a refused claim creates nothing, not even a wallet.
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
import { HallmarkError, isId } from '@hallmark/kit';
import type { Principal } from '@hallmark/proto/common/v1/common';
import type { TransferResult, TransferService } from '../transfers/service.js';
import type { WalletStore } from '../wallets/store.js';
import { claimRefusal, type VoucherRecord } from './domain.js';
import type { VoucherStore } from './store.js';

export interface ClaimResult {
  voucher: VoucherRecord;
  transfer: TransferResult['transfer'];
  replayed: boolean;
}

export interface VoucherClaimsDeps {
  store: VoucherStore;
  wallets: WalletStore;
  transfers: TransferService;
}

export class VoucherClaims {
  constructor(private readonly deps: VoucherClaimsDeps) {}

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
    // Every refusal before anything is written (made again under the lock below).
    const early = claimRefusal(found, {
      userId,
      email: sessionEmail,
      recipientEmail: sessionEmail ? await store.recipientEmail(found.id) : null,
    });
    if (early instanceof HallmarkError) throw early;

    const wallet = (await wallets.ensureUser(userId, principal.enterprise_id)).wallet;
    const { voucher, replay } = await store.claim(
      found.id,
      { userId, enterpriseId: principal.enterprise_id, email: sessionEmail, toAddress: wallet.address },
      async (address, enterpriseId) => (await wallets.byAddress(address))?.enterpriseId === enterpriseId,
    );
    const { transfer } = await transfers.transfer(
      { enterpriseId: voucher.enterpriseId, livemode: voucher.livemode, actorId: userId },
      {
        certificateId: voucher.certificateId,
        idempotencyKey: voucher.claimTransferKey!,
        toAddress: voucher.claimToAddress!,
      },
    );
    return { voucher, transfer, replayed: replay };
  }
}
