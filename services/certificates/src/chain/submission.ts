// A chain submission as the relayer reads it (`chain_submissions`, migrations 0001 and 0501,
// joined with its batch): the relayer's record of one batch's mintBatch transaction. Its
// signing state is a `TxState` (./tx-sender.ts); its SQL is in ./submission-store.ts.
import type { TransferEventMode } from './events.js';

export type SubmissionStatus = 'pending' | 'signed' | 'sent' | 'confirmed' | 'failed';

export interface Submission {
  id: string;
  batchId: string;
  batchKey: string;
  contractAddress: string;
  signer: string | null;
  nonce: number | null;
  rawTx: string | null;
  txHash: string | null;
  /** Earlier hashes of this submission (fee bumps, re-signings), oldest first. */
  replacedHashes: string[];
  /** Time since the current signed bytes were first accepted by the node (ms); null: not yet. */
  sentAgeMs: number | null;
  status: SubmissionStatus;
  attempts: number;
  holderAddress: string;
  quantity: number;
  merkleRoot: string;
  /** The batch's events, fixed when it was recorded (null: the relayer's default). */
  transferEvents: TransferEventMode | null;
}

export interface SubmissionRow {
  id: string;
  batch_id: string;
  batch_key: string;
  contract_address: string;
  signer: string | null;
  nonce: string | null;
  raw_tx: string | null;
  tx_hash: string | null;
  replaced_hashes: string[];
  sent_age_ms: number | null;
  status: SubmissionStatus;
  attempts: number;
  holder_address: string;
  quantity: number;
  merkle_root: string;
  transfer_events: TransferEventMode | null;
}

export function submissionFromRow(r: SubmissionRow): Submission {
  return {
    id: r.id,
    batchId: r.batch_id,
    batchKey: r.batch_key,
    contractAddress: r.contract_address,
    signer: r.signer,
    nonce: r.nonce === null ? null : Number(r.nonce),
    rawTx: r.raw_tx,
    txHash: r.tx_hash,
    replacedHashes: r.replaced_hashes ?? [],
    sentAgeMs: r.sent_age_ms,
    status: r.status,
    attempts: r.attempts,
    holderAddress: r.holder_address,
    quantity: r.quantity,
    merkleRoot: r.merkle_root,
    transferEvents: r.transfer_events ?? null,
  };
}
