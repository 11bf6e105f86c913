// Gift rules without I/O: the create request's validation, claim tokens (derived, hashed,
// recoverable after a key rotation, never stored), who may claim, resend and revoke, and the
// per-attempt transfer keys that make a retried claim the same transfer.
import { describe, expect, it } from '@jest/globals';
import { Encryptor, HallmarkError, newId } from '@hallmark/kit';
import {
  assertCreator,
  claimDecision,
  claimTokenHash,
  isClaimToken,
  notificationError,
  parseCreateGift,
  publicStatus,
  transferKeyOf,
  type GiftRecord,
} from '../src/gifts/domain/gift.js';
import { ClaimTokens } from '../src/gifts/tokens.js';

function errorOf(fn: () => unknown): HallmarkError {
  try {
    fn();
  } catch (err) {
    if (err instanceof HallmarkError) return err;
    throw err;
  }
  throw new Error('expected a HallmarkError');
}

const cert = newId('certificate');
const now = new Date('2026-11-25T12:00:00Z');

function gift(over: Partial<GiftRecord> = {}): GiftRecord {
  return {
    id: newId('gift'),
    enterpriseId: newId('enterprise'),
    livemode: true,
    certificateId: cert,
    creatorId: 'user_creator',
    senderAddress: '0x' + '1'.repeat(40),
    message: null,
    status: 'pending',
    expiresAt: new Date(now.getTime() + 3_600_000),
    claimedBy: null,
    recipientAddress: null,
    transferAttempt: 0,
    transactionHash: null,
    blockNumber: null,
    resendCount: 0,
    createdAt: now,
    claimedAt: null,
    hasPhone: false,
    tokenHash: 'h',
    notification: 'sent',
    notificationError: null,
    kind: 'gift',
    approval: null,
    approvalReason: null,
    ...over,
  };
}

describe('the create request', () => {
  it('accepts a valid request and normalises the phone to E.164', () => {
    expect(
      parseCreateGift({
        certificateId: cert,
        recipientEmail: ' ada@example.com ',
        recipientPhone: '+1 (555) 010-9999',
        message: 'For you',
      }),
    ).toEqual({
      certificateId: cert,
      recipientEmail: 'ada@example.com',
      recipientPhone: '+15550109999',
      message: 'For you',
    });
  });

  it('names the offending field: missing or invalid e-mail, non-E.164 phone, too long a message', () => {
    expect(errorOf(() => parseCreateGift({ recipientEmail: 'a@b.co' })).param).toBe('certificateId');
    expect(errorOf(() => parseCreateGift({ certificateId: cert })).code).toBe('parameter_missing');
    for (const bad of ['nope', 'a@b', 'a b@c.de', '<a@b.co>'])
      expect(errorOf(() => parseCreateGift({ certificateId: cert, recipientEmail: bad })).param).toBe(
        'recipientEmail',
      );
    for (const bad of ['5550109999', '+0123456789', '+1 555'])
      expect(
        errorOf(() => parseCreateGift({ certificateId: cert, recipientEmail: 'a@b.co', recipientPhone: bad }))
          .param,
      ).toBe('recipientPhone');
    const long = errorOf(() =>
      parseCreateGift({ certificateId: cert, recipientEmail: 'a@b.co', message: 'é'.repeat(501) }),
    );
    expect(long.param).toBe('message');
    expect(
      parseCreateGift({ certificateId: cert, recipientEmail: 'a@b.co', message: '😀'.repeat(500) }).message,
    ).toHaveLength(1000);
  });

  it('a malformed certificate id is not found (as an unknown one)', () => {
    expect(errorOf(() => parseCreateGift({ certificateId: 'x', recipientEmail: 'a@b.co' })).code).toBe(
      'resource_not_found',
    );
  });
});

describe('claim tokens', () => {
  it('are 32 bytes base64url, derived per gift, stored only as a hash, and found again after a key rotation', () => {
    const old = Encryptor.generateKey();
    const tokens = new ClaimTokens(old);
    const id = newId('gift');
    const token = tokens.issue(id);
    expect(Buffer.from(token, 'base64url')).toHaveLength(32);
    expect(isClaimToken(token)).toBe(true);
    expect(tokens.issue(newId('gift'))).not.toBe(token);
    const hash = claimTokenHash(token);
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(hash).not.toContain(token);
    const rotated = new ClaimTokens(`${Encryptor.generateKey()},${old}`);
    expect(rotated.recover(id, hash)).toBe(token);
    expect(new ClaimTokens(Encryptor.generateKey()).recover(id, hash)).toBeNull();
    expect(new ClaimTokens(Encryptor.generateKey()).issue(id)).not.toBe(token);
  });

  it('anything not shaped like a token is not one', () => {
    for (const t of ['', 'abc', 'A'.repeat(44), `${'A'.repeat(42)}=`, `${'A'.repeat(42)}/`])
      expect(isClaimToken(t)).toBe(false);
  });
});

describe('who may act', () => {
  it('a pending unexpired gift is taken; its taker repeats; anyone else, a revoked or an expired gift is refused alike', () => {
    expect(claimDecision(gift(), 'user_a', now)).toBe('take');
    const taken = gift({ status: 'claiming', claimedBy: 'user_a' });
    expect(claimDecision(taken, 'user_a', now)).toBe('replay');
    expect(claimDecision({ ...taken, status: 'claimed' }, 'user_a', now)).toBe('replay');
    const refusals = [
      claimDecision(taken, 'user_b', now),
      claimDecision(gift({ status: 'revoked' }), 'user_a', now),
      claimDecision(gift({ expiresAt: now }), 'user_a', now),
    ];
    for (const r of refusals) {
      expect(r).toBeInstanceOf(HallmarkError);
      expect((r as HallmarkError).code).toBe('resource_not_found');
      expect((r as HallmarkError).message).toBe((refusals[0] as HallmarkError).message);
    }
  });

  it('only the creator resends or revokes', () => {
    expect(() => assertCreator(gift(), 'user_creator')).not.toThrow();
    expect(errorOf(() => assertCreator(gift(), 'user_other')).code).toBe('insufficient_permissions');
  });

  it('an expired pending gift shows expired until the workflow removes it', () => {
    expect(publicStatus(gift({ expiresAt: now }), now)).toBe('expired');
    expect(publicStatus(gift(), now)).toBe('pending');
  });
});

describe('a failing notification', () => {
  it('shows its code and message on the gift, never the recipient’s address or number', () => {
    const err = new HallmarkError('validation_failed', {
      param: 'to',
      message: 'The recipient ada@example.com was refused; +15551234567 too.',
    });
    expect(notificationError(err, ['ada@example.com', '+15551234567'])).toBe(
      'validation_failed: The recipient the recipient was refused; the recipient too.',
    );
    expect(notificationError(new Error('socket hang up to ada@example.com'), ['ada@example.com'])).toBe(
      'internal_error: the send failed',
    );
  });
});

describe('transfer keys', () => {
  it('one key per gift and attempt: a repeated step reuses it, a failed transfer moves to a new one', () => {
    expect(transferKeyOf('gift_x', 0)).toBe('gift:gift_x');
    expect(transferKeyOf('gift_x', 0)).toBe(transferKeyOf('gift_x', 0));
    expect(transferKeyOf('gift_x', 2)).toBe('gift:gift_x:2');
  });
});
