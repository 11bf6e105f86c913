// Events are contracts: one table (EVENTS) gives each type's payload schema and webhook route;
// the outbox refuses a payload its schema does not accept, and the webhook lists derive from it.
import { describe, expect, it } from '@jest/globals';
import {
  ENTERPRISE_EVENT_NAMES,
  enterpriseNameOf,
  EVENTS,
  newEvent,
  VERSIONED_EVENT_TYPES,
  versionedTypeOf,
  type EventType,
} from '../src/events.js';
import { outboxBatch } from '../src/outbox.js';

describe('event contracts', () => {
  it('offers exactly the spec’s versioned-surface types, in the spec’s order, then Hallmark’s own', () => {
    expect(VERSIONED_EVENT_TYPES).toEqual([
      'user.created',
      'user.updated',
      'user.deleted',
      'user.verified',
      'transaction.created',
      'transaction.updated',
      'transaction.completed',
      'transaction.failed',
      'payment.succeeded',
      'payment.failed',
      'payment.refunded',
      'subscription.created',
      'subscription.updated',
      'subscription.cancelled',
      'subscription.renewed',
      'document.uploaded',
      'document.processed',
      'document.verified',
      // Not in the spec's list: a discount voucher made (docs/api.md › Events says so).
      'discount_voucher.created',
      // Not in the spec's list: lost and stolen (docs/lost-and-stolen.md).
      'certificate.reported_stolen',
      'certificate.recovered',
      // Not in the spec's list: a tapped NFC tag's message seen again (docs/nfc-tags.md).
      'certificate.tag_clone_suspected',
      // Hallmark's own: a certificate's resale (docs/resale.md).
      'certificate.resale_started',
      'certificate.resale_approval_requested',
      'certificate.resale_approved',
      'certificate.resale_refused',
      'certificate.resale_completed',
      'certificate.resale_cancelled',
    ]);
  });

  it('names the certificate voucher apart internally and as the spec’s voucher.* on the wire', () => {
    expect(ENTERPRISE_EVENT_NAMES).toEqual([
      'bulk.job.completed',
      'bulk.job.failed',
      'voucher.created',
      'voucher.minted',
      'platform.order.failed',
    ]);
    expect(enterpriseNameOf('certificate_voucher.created')).toBe('voucher.created');
    expect(enterpriseNameOf('certificate_voucher.minted')).toBe('voucher.minted');
    // The discount voucher's other events are internal: no webhook of either kind.
    for (const t of ['voucher.created', 'voucher.updated', 'voucher.deleted', 'voucher.redeemed']) {
      expect(enterpriseNameOf(t)).toBeNull();
      expect(versionedTypeOf(t)).toBeNull();
    }
    expect(enterpriseNameOf('no.such.type')).toBeNull();
  });

  it('refuses to write a payload that does not match its type, for every type', () => {
    for (const type of Object.keys(EVENTS) as EventType[]) {
      const bad = newEvent(type, { unexpected: true } as never, { enterpriseId: 'ent_x', livemode: true });
      expect(() => outboxBatch('kit', [bad])).toThrow();
    }
  });

  it('refuses a discount-voucher or transaction payload missing a field the contract names', () => {
    const txn = {
      id: 'txn_1',
      type: 'voucher_redemption',
      amount: 150,
      currency: 'USD',
      status: 'completed' as const,
      user_id: 'user_1',
      description: 'Voucher X on order o',
      metadata: {},
      created_at: new Date().toISOString(),
    };
    expect(() => outboxBatch('kit', [newEvent('transaction.completed', { object: txn })])).not.toThrow();
    const { amount: _, ...noAmount } = txn;
    expect(() =>
      outboxBatch('kit', [newEvent('transaction.completed', { object: noAmount as typeof txn })]),
    ).toThrow();
    expect(() =>
      outboxBatch('kit', [
        newEvent('transaction.completed', { object: { ...txn, status: 'done' as 'failed' } }),
      ]),
    ).toThrow();
  });

  it('keeps fields the contract does not name (payloads pass through whole)', () => {
    const [env] = outboxBatch('kit', [
      newEvent('certificate_voucher.created', { object: { id: 'v_1', url: 'https://x/v_1', extra: 1 } }),
    ]).envelopes;
    expect(env!.data).toEqual({ object: { id: 'v_1', url: 'https://x/v_1', extra: 1 } });
  });
});
