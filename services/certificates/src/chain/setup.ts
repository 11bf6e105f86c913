// Connects the service to its chain: provider, relayer signer and the HallmarkCertificates
// contract. With HALLMARK_CONTRACT_ADDRESS unset on a local dev chain (anvil, chain id 31337)
// the contract is deployed at the first start and its address kept in `chain_state`, so
// restarts reuse it (and deploy again only if the chain lost it, e.g. a fresh anvil).
import type { Logger, Pool } from '@hallmark/kit';
import { JsonRpcProvider, Network, Wallet, getAddress } from 'ethers';
import { CertificatesContract, MINTER_ROLE, deployCertificates } from './contract.js';

export const LOCAL_CHAIN_ID = 31337n;

export interface ChainConfig {
  rpcUrl: string;
  relayerKey: string;
  chainId?: number;
  contractAddress?: string;
  /** tokenURI base, e.g. `${HALLMARK_PUBLIC_URL}/api/certificate/metadata/`. */
  baseURI: string;
}

export interface Chain {
  provider: JsonRpcProvider;
  signer: Wallet;
  chainId: bigint;
  contract: CertificatesContract;
}

export function chainProvider(rpcUrl: string, chainId?: number): JsonRpcProvider {
  if (chainId === undefined) return new JsonRpcProvider(rpcUrl);
  const local = BigInt(chainId) === LOCAL_CHAIN_ID;
  return new JsonRpcProvider(rpcUrl, Network.from(chainId), {
    staticNetwork: true,
    // A local chain mines at once: poll fast, never cache (the relayer re-reads nonces).
    ...(local ? { pollingInterval: 100, cacheTimeout: -1 } : {}),
  });
}

export async function connectChain(cfg: ChainConfig, pool: Pool, log: Logger): Promise<Chain> {
  const provider = chainProvider(cfg.rpcUrl, cfg.chainId);
  const chainId = (await provider.getNetwork()).chainId;
  if (cfg.chainId !== undefined && BigInt(cfg.chainId) !== chainId) {
    throw new Error(`HALLMARK_CHAIN_ID is ${cfg.chainId} but the chain at the RPC URL is ${chainId}`);
  }
  const signer = new Wallet(cfg.relayerKey, provider);
  let address = cfg.contractAddress ? getAddress(cfg.contractAddress) : undefined;
  if (!address) {
    if (chainId !== LOCAL_CHAIN_ID) {
      throw new Error(
        'HALLMARK_CONTRACT_ADDRESS is required on any chain other than a local dev chain (31337)',
      );
    }
    address = await devContract(pool, signer, chainId, cfg.baseURI, log);
  }
  if ((await provider.getCode(address)) === '0x')
    throw new Error(`no contract at ${address} on chain ${chainId}`);
  const contract = new CertificatesContract(address, signer);
  if (!(await contract.hasRole(MINTER_ROLE, signer.address))) {
    log.warn(
      { contract: address, relayer: signer.address },
      'the relayer key lacks MINTER_ROLE: mints will revert',
    );
  }
  return { provider, signer, chainId, contract };
}

/** The dev contract of this database on a local chain: reused if the chain still has it, else deployed. */
async function devContract(pool: Pool, signer: Wallet, chainId: bigint, baseURI: string, log: Logger) {
  const key = `contract:${chainId}`;
  const client = await pool.connect();
  try {
    // One deployer at a time (replicas starting together).
    await client.query('SELECT pg_advisory_lock(hashtextextended($1, 0))', [key]);
    const { rows } = await client.query<{ value: string }>('SELECT value FROM chain_state WHERE key = $1', [
      key,
    ]);
    const known = rows[0]?.value;
    if (known && (await signer.provider!.getCode(known)) !== '0x') return known;
    const deployed = await deployCertificates(signer, { baseURI });
    await client.query(
      `INSERT INTO chain_state (key, value) VALUES ($1, $2)
       ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value, updated_at = now()`,
      [key, deployed.address],
    );
    log.info(
      { contract: deployed.address, chainId: chainId.toString() },
      'deployed HallmarkCertificates (dev chain)',
    );
    return deployed.address;
  } finally {
    await client.query('SELECT pg_advisory_unlock(hashtextextended($1, 0))', [key]).catch(() => undefined);
    client.release();
  }
}
