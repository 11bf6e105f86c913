// All SQL of the message log. `claim` is the idempotency gate of Send: exactly one caller
// holds a key's 'sending' lease at a time; a finished key answers from the log.
import { HallmarkError, randomBase62, transaction, type Pool, type RetentionRule } from '@hallmark/kit';
import type { Channel } from './domain/recipients.js';

/**
 * Retention of the message log: 30 days after the send. A finished message's row is its
 * idempotency record (a retried Send answers from it), which callers need for minutes, not
 * weeks (Stripe keeps idempotency keys 24 hours); the rest is delivery evidence for support.
 * A message still 'sending' (its lease may yet be retaken) stays however old.
 */
export const MESSAGE_RETENTION: RetentionRule = {
  table: 'messages',
  key: 'id',
  ageColumn: 'created_at',
  onlyIf: "status <> 'sending'",
  defaultDays: 30,
};

export interface MessageRow {
  id: string;
  channel: Channel;
  status: 'sending' | 'sent' | 'failed';
  provider: string | null;
  provider_message_id: string | null;
  request_hash: string;
  lease_until: Date | null;
  sent_at: Date | null;
  attempts: number;
}

export interface NewMessage {
  enterpriseId: string;
  livemode: boolean;
  idempotencyKey: string;
  requestHash: string;
  channel: Channel;
  recipientEncrypted: string;
  recipientHash: string;
  templateId: string | null;
}

export type Claim = { kind: 'claimed'; row: MessageRow } | { kind: 'replay'; row: MessageRow };

export const newMessageId = () => `msg_${randomBase62(24)}`;

export class MessagesStore {
  constructor(
    readonly pool: Pool,
    private readonly leaseMs: number,
  ) {}

  /**
   * Takes the key's lease, or answers from the log: sent → replay; same key with other
   * content → 409 resource_already_exists; in flight under a live lease → 409
   * resource_locked (retryable); failed or abandoned → claimed again.
   */
  async claim(m: NewMessage): Promise<Claim> {
    return transaction(this.pool, async (tx) => {
      const inserted = await tx.query<MessageRow>(
        `INSERT INTO messages (id, enterprise_id, livemode, idempotency_key, request_hash, channel,
           recipient_encrypted, recipient_hash, template_id, status, lease_until)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 'sending', now() + $10 * interval '1 millisecond')
         ON CONFLICT (enterprise_id, livemode, idempotency_key) DO NOTHING RETURNING *`,
        [
          newMessageId(),
          m.enterpriseId,
          m.livemode,
          m.idempotencyKey,
          m.requestHash,
          m.channel,
          m.recipientEncrypted,
          m.recipientHash,
          m.templateId,
          this.leaseMs,
        ],
      );
      if (inserted.rows[0]) return { kind: 'claimed', row: inserted.rows[0] };
      const { rows } = await tx.query<MessageRow & { live: boolean }>(
        `SELECT *, lease_until > now() AS live FROM messages
         WHERE enterprise_id = $1 AND livemode = $2 AND idempotency_key = $3 FOR UPDATE`,
        [m.enterpriseId, m.livemode, m.idempotencyKey],
      );
      const row = rows[0]!;
      if (row.request_hash !== m.requestHash)
        throw new HallmarkError('resource_already_exists', {
          param: 'idempotency_key',
          message: 'This idempotency key was used for a different message.',
        });
      if (row.status === 'sent') return { kind: 'replay', row };
      if (row.status === 'sending' && row.live)
        throw new HallmarkError('resource_locked', {
          param: 'idempotency_key',
          message: 'A message with this idempotency key is being sent. Retry shortly.',
        });
      const retaken = await tx.query<MessageRow>(
        `UPDATE messages SET status = 'sending', attempts = attempts + 1, updated_at = now(),
           recipient_encrypted = $2, lease_until = now() + $3 * interval '1 millisecond'
         WHERE id = $1 RETURNING *`,
        [row.id, m.recipientEncrypted, this.leaseMs],
      );
      return { kind: 'claimed', row: retaken.rows[0]! };
    });
  }

  async markSent(id: string, provider: string, providerMessageId: string): Promise<MessageRow> {
    const { rows } = await this.pool.query<MessageRow>(
      `UPDATE messages SET status = 'sent', provider = $2, provider_message_id = $3, sent_at = now(),
         updated_at = now(), lease_until = NULL, last_error = NULL
       WHERE id = $1 RETURNING *`,
      [id, provider, providerMessageId],
    );
    return rows[0]!;
  }

  async markFailed(id: string, code: string): Promise<void> {
    await this.pool.query(
      `UPDATE messages SET status = 'failed', last_error = $2, updated_at = now(), lease_until = NULL WHERE id = $1`,
      [id, code],
    );
  }
}
