// An address's allowlist entry as every allowlist endpoint answers it.
import type { AllowlistEntry as EntryRecord } from '@hallmark/proto/certificates/v1/allowlist';
import { bool, int, nullable, str, time, Type, type TSchema } from '../../endpoint/schema.js';

const entryFields = {
  address: str(64),
  allowlistStatus: Type.Optional(nullable(str(32))),
  allowlistError: Type.Optional(nullable(str(2000))),
  lastAllowlistAttempt: Type.Optional(nullable(time)),
  allowlistRetryCount: int(),
  transactionHash: Type.Optional(nullable(str(66))),
  blockNumber: Type.Optional(nullable(int())),
  onChain: Type.Optional(nullable(bool)),
};

/** The entry, with the fields an endpoint adds to it. */
export const entryWith = <P extends Record<string, TSchema>>(extra: P) =>
  Type.Object({ ...entryFields, ...extra });

export function presentAllowlistEntry(e: EntryRecord) {
  return {
    address: e.address,
    allowlistStatus: e.status ?? null,
    allowlistError: e.error ?? null,
    lastAllowlistAttempt: e.last_attempt ?? null,
    allowlistRetryCount: e.retry_count,
    transactionHash: e.transaction_hash ?? null,
    blockNumber: e.block_number ?? null,
    onChain: e.on_chain ?? null,
  };
}
