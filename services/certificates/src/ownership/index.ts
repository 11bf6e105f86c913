// The ownership slice assembled for main.ts: proof-of-ownership links and export.
import { bind, type Pool } from '@hallmark/kit';
import { OwnershipServiceService, type OwnershipServiceServer } from '@hallmark/proto/certificates/v1/resale';
import type { Chain } from '../chain/setup.js';
import type { CertificatesStore } from '../store.js';
import type { TransferService } from '../transfers/service.js';
import type { WalletStore } from '../wallets/store.js';
import { createOwnershipHandlers } from './rpc.js';
import { OwnershipService } from './service.js';
import { OwnershipStore } from './store.js';

export function ownershipSlice(d: {
  pool: Pool;
  certificates: CertificatesStore;
  wallets: WalletStore;
  transfers: TransferService | null;
  chain: Chain | null;
}) {
  const { chain } = d;
  const service = new OwnershipService({
    links: new OwnershipStore(d.pool),
    certificates: d.certificates,
    wallets: d.wallets,
    transfers: d.transfers,
    chain: () =>
      chain && {
        chainId: chain.chainId,
        contractAddress: chain.contract.address,
        nonceOf: (tokenId) => chain.contract.nonces(tokenId),
      },
  });
  return {
    service,
    binding: bind<OwnershipServiceServer>(OwnershipServiceService, createOwnershipHandlers(service)),
  };
}
