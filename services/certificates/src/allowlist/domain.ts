// Allowlist domain (spec › Allowlist status): an address as the API takes it, and the entry
// states. Pure.
import { invalidParam, missingParam } from '@hallmark/kit/errors';
import { getAddress, isAddress } from 'ethers';

export type AllowlistStatus = 'pending' | 'success' | 'failed';

/** Longest wait-for-confirmation answers after (ms). */
export const MAX_WAIT_MS = 30_000;
const DEFAULT_WAIT_MS = 10_000;

export interface AllowlistEntryRecord {
  address: string;
  status: AllowlistStatus;
  error: string | null;
  lastAttempt: Date | null;
  retryCount: number;
  transactionHash: string | null;
  blockNumber: number | null;
  createdAt: Date;
  updatedAt: Date;
}

/** A 0x-prefixed 20-byte address (a mixed-case one must carry a valid checksum) → checksummed. */
export function parseAddress(value: string | undefined, param = 'address'): string {
  const v = (value ?? '').trim();
  if (!v) throw missingParam(param);
  if (!/^0x[0-9a-fA-F]{40}$/.test(v) || !isAddress(v)) {
    throw invalidParam(param, `${param} must be a 0x-prefixed 20-byte address with a valid checksum.`);
  }
  return getAddress(v);
}

/** The bounded wait of wait-for-confirmation. */
export function parseWaitMs(value: number | undefined): number {
  if (value === undefined) return DEFAULT_WAIT_MS;
  if (!Number.isInteger(value) || value < 0 || value > MAX_WAIT_MS) {
    throw invalidParam('timeoutMs', `timeoutMs must be an integer from 0 to ${MAX_WAIT_MS}.`);
  }
  return value;
}

export const isFinal = (status: AllowlistStatus): boolean => status === 'success' || status === 'failed';
