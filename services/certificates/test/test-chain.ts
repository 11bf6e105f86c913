// The chain connection the certificates tests make: a local anvil, its first account as the
// relayer (the contract's deployer, so MINTER_ROLE), and the tests' metadata base URI. The
// contract is deployed on first use (connectChain).
import type { AnvilHandle } from '@hallmark/devstack';
import type { Logger, Pool } from '@hallmark/kit';
import { anvilWallet } from '../src/chain/dev-accounts.js';
import { connectChain, type Chain } from '../src/chain/setup.js';

export function connectTestChain(
  anvil: Pick<AnvilHandle, 'rpcUrl' | 'chainId'>,
  pool: Pool,
  log: Logger,
): Promise<Chain> {
  return connectChain(
    {
      rpcUrl: anvil.rpcUrl,
      relayerKey: anvilWallet(0).privateKey,
      chainId: anvil.chainId,
      baseURI: 'https://h.test/m/',
    },
    pool,
    log,
  );
}
