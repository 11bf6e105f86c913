// Chain settings, pure rules: an enterprise's choice of how its batches announce their tokens,
// and the mode a batch is minted with. Names on the API: `per_token` (one ERC-721 Transfer per
// token) and `consecutive` (one ERC-2309 ConsecutiveTransfer per batch); inside the service the
// contract binding's `per-token` / `erc2309`.
import { invalidParam } from '@hallmark/kit/errors';
import type { TransferEventMode } from '../chain/contract.js';

export const API_TRANSFER_EVENTS = ['per_token', 'consecutive'] as const;
export type ApiTransferEvents = (typeof API_TRANSFER_EVENTS)[number];

export interface ChainSettings {
  /** The enterprise lists its certificates on NFT marketplaces. */
  marketplaces: boolean;
  /** Its explicit choice, or null. */
  transferEvents: ApiTransferEvents | null;
  updatedAt: Date | null;
}

export const NO_SETTINGS: ChainSettings = { marketplaces: false, transferEvents: null, updatedAt: null };

export type ModeSource = 'enterprise' | 'marketplaces' | 'deployment';

export const toMode = (e: ApiTransferEvents): TransferEventMode =>
  e === 'per_token' ? 'per-token' : 'erc2309';
export const toApi = (m: TransferEventMode): ApiTransferEvents =>
  m === 'per-token' ? 'per_token' : 'consecutive';

/** `""`: none; else one of API_TRANSFER_EVENTS (parameter_invalid `transferEvents` otherwise). */
export function parseTransferEvents(value: string): ApiTransferEvents | null {
  if (value === '') return null;
  const found = API_TRANSFER_EVENTS.find((e) => e === value);
  if (!found) {
    throw invalidParam('transferEvents', 'transferEvents must be per_token, consecutive or null.');
  }
  return found;
}

/**
 * The mode an enterprise's batch is recorded with: its explicit choice, else per token when it
 * sells on marketplaces, else null (the deployment's default, applied by the relayer).
 */
export function batchMode(s: ChainSettings): TransferEventMode | null {
  if (s.transferEvents) return toMode(s.transferEvents);
  return s.marketplaces ? 'per-token' : null;
}

/** The mode the enterprise's next batch gets, and why. */
export function effectiveMode(
  s: ChainSettings,
  deploymentDefault: TransferEventMode,
): { mode: TransferEventMode; source: ModeSource } {
  if (s.transferEvents) return { mode: toMode(s.transferEvents), source: 'enterprise' };
  if (s.marketplaces) return { mode: 'per-token', source: 'marketplaces' };
  return { mode: deploymentDefault, source: 'deployment' };
}
