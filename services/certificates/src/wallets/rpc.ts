// Proto mapping of the custodial wallets.
import type { Wallet as WalletProto } from '@hallmark/proto/certificates/v1/certificates';
import type { EnsuredWallet } from './store.js';

export function walletToProto({ wallet, created }: EnsuredWallet): WalletProto {
  return {
    owner_kind: wallet.ownerKind,
    owner_id: wallet.ownerId,
    address: wallet.address,
    created_at: wallet.createdAt.toISOString(),
    created,
  };
}
