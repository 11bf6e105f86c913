// Proto mapping of the custodial wallets.
import type { Wallet as WalletProto, WalletOwner } from '@hallmark/proto/certificates/v1/certificates';
import type { Scope } from '../domain/certificate.js';
import { parseWalletOwner, type EnsuredWallet, type WalletStore } from './store.js';

export function walletToProto({ wallet, created }: EnsuredWallet): WalletProto {
  return {
    owner_kind: wallet.ownerKind,
    owner_id: wallet.ownerId,
    address: wallet.address,
    created_at: wallet.createdAt.toISOString(),
    created,
  };
}

/** The wallet of an owner reference of the scope's enterprise, created if needed. */
export function ensureWalletOf(
  wallets: WalletStore,
  scope: Scope,
  owner: WalletOwner | undefined,
  param: string,
): Promise<EnsuredWallet> {
  const o = parseWalletOwner(scope.enterpriseId, owner, param);
  return wallets.ensure(scope.enterpriseId, o.kind, o.id);
}
