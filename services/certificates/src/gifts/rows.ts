// The rows of `gifts` (migrations 0801, 2001, 3331) and their mapping to GiftRecord, shared by
// the gift and resale stores.
import type { Approval, GiftKind, GiftRecord, GiftStatus, NotificationState } from './domain/gift.js';

export interface GiftRow {
  id: string;
  enterprise_id: string;
  livemode: boolean;
  certificate_id: string;
  creator_id: string;
  sender_address: string;
  recipient_email_enc: string;
  recipient_phone_enc: string | null;
  sender_email_enc: string | null;
  message: string | null;
  status: GiftStatus;
  expires_at: Date;
  claimed_by: string | null;
  recipient_address: string | null;
  transfer_attempt: number;
  transaction_hash: string | null;
  block_number: string | null;
  resend_count: number;
  created_at: Date;
  claimed_at: Date | null;
  claim_token_hash: string;
  notification: NotificationState;
  notification_error: string | null;
  kind: GiftKind;
  approval: Approval | null;
  approval_reason: string | null;
}

export const fromRow = (r: GiftRow): GiftRecord => ({
  id: r.id,
  enterpriseId: r.enterprise_id,
  livemode: r.livemode,
  certificateId: r.certificate_id,
  creatorId: r.creator_id,
  senderAddress: r.sender_address,
  message: r.message,
  status: r.status,
  expiresAt: r.expires_at,
  claimedBy: r.claimed_by,
  recipientAddress: r.recipient_address,
  transferAttempt: r.transfer_attempt,
  transactionHash: r.transaction_hash,
  blockNumber: r.block_number === null ? null : Number(r.block_number),
  resendCount: r.resend_count,
  createdAt: r.created_at,
  claimedAt: r.claimed_at,
  hasPhone: r.recipient_phone_enc !== null,
  tokenHash: r.claim_token_hash,
  notification: r.notification,
  notificationError: r.notification_error,
  kind: r.kind,
  approval: r.approval,
  approvalReason: r.approval_reason,
});
