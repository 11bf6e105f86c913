// Which block explorer the verify page links to: one base URL per chain. Public chains have
// a known explorer; a local chain (the dev stack's anvil, 31337) or an unknown one has none,
// and the page then shows hashes and addresses without links rather than links to another
// chain's explorer, where they would not exist.
import type { Explorer } from './technical.js';

/** Explorer base URLs of the public chains Hallmark may run on, by chain id. */
export const KNOWN_EXPLORERS: Readonly<Record<number, string>> = {
  1: 'https://etherscan.io',
  11155111: 'https://sepolia.etherscan.io',
  17000: 'https://holesky.etherscan.io',
  10: 'https://optimistic.etherscan.io',
  137: 'https://polygonscan.com',
  80002: 'https://amoy.polygonscan.com',
  8453: 'https://basescan.org',
  84532: 'https://sepolia.basescan.org',
  42161: 'https://arbiscan.io',
  421614: 'https://sepolia.arbiscan.io',
};

export interface ExplorerSettings {
  HALLMARK_CHAIN_ID?: number;
  HALLMARK_CHAIN_EXPLORER_URL?: string;
  HALLMARK_CHAIN_EXPLORER_TX_URL?: string;
  HALLMARK_CHAIN_EXPLORER_ADDRESS_URL?: string;
}

/**
 * The explorer of the configured chain, or null: the set base URL (empty: none), else the
 * chain's known one; the `{hash}` / `{address}` templates, when set, win for their links.
 */
export function explorerOf(c: ExplorerSettings): Explorer | null {
  const base = (
    c.HALLMARK_CHAIN_EXPLORER_URL ??
    (c.HALLMARK_CHAIN_ID ? KNOWN_EXPLORERS[c.HALLMARK_CHAIN_ID] : '') ??
    ''
  ).replace(/\/+$/, '');
  const tx = c.HALLMARK_CHAIN_EXPLORER_TX_URL ?? (base ? `${base}/tx/{hash}` : '');
  const address = c.HALLMARK_CHAIN_EXPLORER_ADDRESS_URL ?? (base ? `${base}/address/{address}` : '');
  return tx || address ? { tx, address } : null;
}
