// The accounts a fresh local anvil funds (its default test mnemonic): for the dev stack and the
// contract tests only. Never use them on a real chain: the keys are public.
import { HDNodeWallet, JsonRpcProvider, Network, type Provider } from 'ethers';

const ANVIL_MNEMONIC = 'test test test test test test test test test test test junk';

/** Account `index` of anvil's default mnemonic (funded with 10,000 ETH on a fresh anvil). */
export function anvilWallet(index: number, provider?: Provider): HDNodeWallet {
  const wallet = HDNodeWallet.fromPhrase(ANVIL_MNEMONIC, undefined, `m/44'/60'/0'/0/${index}`);
  return provider ? wallet.connect(provider) : wallet;
}

/** A provider tuned for a local automining chain: fixed network, fast polling. */
export function localProvider(rpcUrl: string, chainId: number): JsonRpcProvider {
  return new JsonRpcProvider(rpcUrl, Network.from(chainId), {
    staticNetwork: true,
    pollingInterval: 50,
    cacheTimeout: -1,
  });
}
