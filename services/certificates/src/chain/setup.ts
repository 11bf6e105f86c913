// Connects the service to its chain: provider, relayer signer and the HallmarkCertificates
// contract. With HALLMARK_CONTRACT_ADDRESS unset on a local dev chain (anvil, chain id 31337)
// the contract is deployed at the first start and its address kept in `chain_state`, so
// restarts reuse it (and deploy again only if the chain lost it or it predates per-batch event
// modes and ERC-4906 announcements, e.g. a fresh anvil). Event modes: each batch is minted with
// its enterprise's mode (../settings/); HALLMARK_CHAIN_TRANSFER_EVENTS is the default for
// enterprises that chose none. A contract deployed per-token-only (`perTokenTransferEvents()`)
// emits a Transfer per token whatever a batch asks, so its default is `per-token`.
// Mint signers: HALLMARK_RELAYER_KEY is signer 1 (it also sends transfers, allowlist writes and
// announcements); signers 2..N (HALLMARK_RELAYER_SIGNERS) come from HALLMARK_RELAYER_MINT_KEYS,
// or on the local dev chain from anvil's mnemonic (accounts 10, 11, …: public keys, funded and
// granted MINTER_ROLE here by signer 1, the dev contract's admin). Each signer has its own nonce
// line: parallel mint transactions never wait on one account's nonce order.
import type { Logger, Pool } from '@hallmark/kit';
import { JsonRpcProvider, Network, Wallet, getAddress } from 'ethers';
import { withDevContractLock } from './chain-state-store.js';
import { CertificatesContract, MINTER_ROLE, deployCertificates, type TransferEventMode } from './contract.js';
import { anvilWallet } from './dev-accounts.js';

const LOCAL_CHAIN_ID = 31337n;

export interface ChainConfig {
  rpcUrl: string;
  relayerKey: string;
  /** Mint signers in all (HALLMARK_RELAYER_SIGNERS, default 1): the relayer key first. */
  signers?: number;
  /** Keys of signers 2..N (HALLMARK_RELAYER_MINT_KEYS); on the dev chain anvil accounts fill in. */
  mintKeys?: readonly string[];
  chainId?: number;
  contractAddress?: string;
  /** tokenURI base, e.g. `${HALLMARK_PUBLIC_URL}/api/certificate/metadata/`. */
  baseURI: string;
  /** Events of the batches of enterprises that chose no mode; default `erc2309`. */
  transferEvents?: TransferEventMode;
}

export interface Chain {
  provider: JsonRpcProvider;
  /** Signer 1: HALLMARK_RELAYER_KEY (mints, and every other relayer transaction). */
  signer: Wallet;
  /** Every mint signer, `signer` first, each with its own nonce line (relayer.ts). */
  signers: Wallet[];
  chainId: bigint;
  contract: CertificatesContract;
  /**
   * The events of batches whose enterprise chose no mode: the configured default, or `per-token`
   * on a per-token-only contract (which never emits ConsecutiveTransfer).
   */
  transferEvents: TransferEventMode;
}

function chainProvider(rpcUrl: string, chainId?: number): JsonRpcProvider {
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
    address = await devContract(pool, signer, chainId, cfg, log);
  }
  if ((await provider.getCode(address)) === '0x')
    throw new Error(`no contract at ${address} on chain ${chainId}`);
  const contract = new CertificatesContract(address, signer);
  const signers = mintSigners(cfg, provider, signer, chainId);
  if (chainId === LOCAL_CHAIN_ID && signers.length > 1) await enrolDevSigners(pool, contract, signers, log);
  for (const s of signers) {
    if (!(await contract.hasRole(MINTER_ROLE, s.address))) {
      log.warn(
        { contract: address, relayer: s.address },
        'a relayer signer lacks MINTER_ROLE: its mints will revert',
      );
    }
  }
  const perTokenOnly = (await eventModeOf(contract)) === 'per-token';
  const wanted = cfg.transferEvents ?? 'erc2309';
  const transferEvents = perTokenOnly ? 'per-token' : wanted;
  if (transferEvents !== wanted) {
    log.warn(
      { contract: address, configured: wanted },
      'the contract was deployed per-token-only: every batch emits a Transfer per token, whatever HALLMARK_CHAIN_TRANSFER_EVENTS or an enterprise asks',
    );
  }
  return { provider, signer, signers, chainId, contract, transferEvents };
}

/** The mint signers: the relayer key, the configured mint keys, then (dev chain) anvil accounts. */
function mintSigners(cfg: ChainConfig, provider: JsonRpcProvider, first: Wallet, chainId: bigint): Wallet[] {
  const n = cfg.signers ?? 1;
  const keys = (cfg.mintKeys ?? []).slice(0, n - 1);
  if (keys.length < n - 1 && chainId !== LOCAL_CHAIN_ID) {
    throw new Error(
      `HALLMARK_RELAYER_SIGNERS is ${n} but HALLMARK_RELAYER_MINT_KEYS has ${keys.length} keys (it needs ${n - 1})`,
    );
  }
  const wallets = [first, ...keys.map((k) => new Wallet(k, provider))];
  for (let i = 10; wallets.length < n; i++) {
    wallets.push(new Wallet(anvilWallet(i).privateKey, provider));
  }
  const unique = new Set(wallets.map((w) => w.address.toLowerCase()));
  if (unique.size !== wallets.length) throw new Error('the relayer signers must be distinct keys');
  return wallets;
}

/** Dev chain only: signer 1 funds the other signers and grants them MINTER_ROLE (once). */
async function enrolDevSigners(pool: Pool, contract: CertificatesContract, signers: Wallet[], log: Logger) {
  const [admin, ...others] = signers;
  await withDevContractLock(pool, `signers:${contract.address}`, async () => {
    for (const s of others) {
      if ((await admin!.provider!.getBalance(s.address)) < 10n ** 20n) {
        await (await admin!.sendTransaction({ to: s.address, value: 1000n * 10n ** 18n })).wait();
      }
      if (!(await contract.hasRole(MINTER_ROLE, s.address))) {
        await (await contract.grantRole(MINTER_ROLE, s.address)).wait();
        log.info({ contract: contract.address, signer: s.address }, 'dev chain: granted MINTER_ROLE');
      }
    }
  });
}

/**
 * A contract deployed before the mode existed has no `perTokenTransferEvents()` (the call
 * reverts): it emits per token. Any other failure (the node, the network) is not an answer.
 */
async function eventModeOf(contract: CertificatesContract): Promise<TransferEventMode> {
  try {
    return await contract.transferEventMode();
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === 'CALL_EXCEPTION' || code === 'BAD_DATA') return 'per-token';
    throw err;
  }
}

/**
 * The dev contract of this database on a local chain: reused if the chain still has it and it
 * is current (it answers `announceMetadataUpdate`, so it takes a per-batch event mode too), else
 * deployed. Dev contracts let every batch choose its events; the configured mode is a default.
 */
async function devContract(pool: Pool, signer: Wallet, chainId: bigint, cfg: ChainConfig, log: Logger) {
  const key = `contract:${chainId}`;
  return withDevContractLock(pool, key, async (known, remember) => {
    if (known && (await signer.provider!.getCode(known)) !== '0x') {
      const contract = new CertificatesContract(known, signer);
      if (await isCurrent(contract)) return known;
    }
    const deployed = await deployCertificates(signer, { baseURI: cfg.baseURI });
    await remember(deployed.address);
    log.info(
      { contract: deployed.address, chainId: chainId.toString() },
      'deployed HallmarkCertificates (dev chain)',
    );
    return deployed.address;
  });
}

/** Whether the contract has `announceMetadataUpdate` (an empty announcement is a no-op). */
async function isCurrent(contract: CertificatesContract): Promise<boolean> {
  try {
    await contract.contract.getFunction('announceMetadataUpdate').staticCall([], []);
    return true;
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === 'CALL_EXCEPTION' || code === 'BAD_DATA') return false;
    throw err;
  }
}
