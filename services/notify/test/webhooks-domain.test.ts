// Pure rules of the webhooks half: signatures (checked by the independent verifiers in
// webhooks-helpers.ts), the retry schedule, the outbound guard's decisions, event mapping
// and input rules.
import { describe, expect, it } from '@jest/globals';
import { HallmarkError, isId, nonPublicReason, OutboundGuard, type EventEnvelope } from '@hallmark/kit';
import { deliveryIdFor } from '../src/webhooks/domain/delivery-id.js';
import {
  enterpriseBody,
  enterpriseTypeOf,
  versionedBody,
  versionedTypeOf,
} from '../src/webhooks/domain/events.js';
import {
  maxAttemptsOf,
  nextAttemptAt,
  DEFAULT_RETRY_SCHEDULE_S,
  isSuccess,
} from '../src/webhooks/domain/schedule.js';
import {
  enterpriseHeaders,
  generateEndpointSecret,
  versionedHeaders,
} from '../src/webhooks/domain/signing.js';
import {
  parseEndpointSecret,
  parseSubscriptionSecret,
  parseUrl,
  parseVersionedEvents,
} from '../src/webhooks/domain/validation.js';
import {
  verifyEnterpriseSignature,
  verifyServiceSignature,
  verifyStandardWebhook,
} from './webhooks-helpers.js';

const body = JSON.stringify({
  id: 'evt_1',
  type: 'transaction.completed',
  data: { object: { amount: 100 } },
});

describe('signing', () => {
  it('X-Service-Signature verifies with a Stripe-style verifier over `${t}.${body}`, and fails on any change', () => {
    const secret = generateEndpointSecret();
    const t = Math.floor(Date.now() / 1000);
    const h = versionedHeaders({ id: 'evt_1', body, timestamp: t, secrets: [secret] });
    expect(h['x-service-signature']).toMatch(new RegExp(`^t=${t},v1=[0-9a-f]{64}$`));
    expect(verifyServiceSignature(h['x-service-signature']!, body, secret)).toBe(true);
    expect(verifyServiceSignature(h['x-service-signature']!, body + ' ', secret)).toBe(false);
    expect(verifyServiceSignature(h['x-service-signature']!, body, generateEndpointSecret())).toBe(false);
    // A timestamp outside the 5-minute tolerance is rejected by the verifier.
    const old = versionedHeaders({ id: 'evt_1', body, timestamp: t - 301, secrets: [secret] });
    expect(verifyServiceSignature(old['x-service-signature']!, body, secret)).toBe(false);
  });

  it('Standard Webhooks headers verify with the whsec_ key base64-decoded', () => {
    const secret = generateEndpointSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const h = versionedHeaders({
      id: 'evt_1',
      body,
      timestamp: Math.floor(Date.now() / 1000),
      secrets: [secret],
    });
    expect(h['webhook-id']).toBe('evt_1');
    expect(h['webhook-timestamp']).toBe(h['x-service-signature']!.slice(2, 12));
    expect(h['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(verifyStandardWebhook(h, body, secret)).toBe(true);
    expect(verifyStandardWebhook({ ...h, 'webhook-id': 'evt_2' }, body, secret)).toBe(false);
  });

  it('during a rotation overlap both secrets sign, newest first, in both schemes', () => {
    const [next, prev] = [generateEndpointSecret(), generateEndpointSecret()];
    const h = versionedHeaders({
      id: 'e',
      body,
      timestamp: Math.floor(Date.now() / 1000),
      secrets: [next, prev],
    });
    expect(h['x-service-signature']!.split(',').filter((p) => p.startsWith('v1='))).toHaveLength(2);
    expect(h['webhook-signature']!.split(' ')).toHaveLength(2);
    for (const s of [next, prev]) {
      expect(verifyServiceSignature(h['x-service-signature']!, body, s)).toBe(true);
      expect(verifyStandardWebhook(h, body, s)).toBe(true);
    }
  });

  it('enterprise signature is the hex HMAC of the body with the subscription secret', () => {
    const secret = 'ab'.repeat(32);
    const h = enterpriseHeaders({ id: 'evt_1', event: 'bulk.job.completed', body, at: new Date(), secret });
    expect(verifyEnterpriseSignature(h['x-webhook-signature']!, body, secret)).toBe(true);
    expect(h['x-webhook-event']).toBe('bulk.job.completed');
    expect(new Date(h['x-webhook-timestamp']!).toISOString()).toBe(h['x-webhook-timestamp']);
  });
});

describe('retry schedule', () => {
  it('default: 6 attempts — at once, then after 1 m, 5 m, 15 m, 1 h, 6 h; none after the last', () => {
    const max = maxAttemptsOf(DEFAULT_RETRY_SCHEDULE_S);
    expect(max).toBe(6);
    const t0 = new Date('2025-01-01T00:00:00Z');
    const waits = [1, 2, 3, 4, 5].map(
      (n) => (nextAttemptAt(DEFAULT_RETRY_SCHEDULE_S, n, max, t0)!.getTime() - t0.getTime()) / 1000,
    );
    expect(waits).toEqual([60, 300, 900, 3600, 21600]);
    expect(nextAttemptAt(DEFAULT_RETRY_SCHEDULE_S, 6, max, t0)).toBeNull();
  });

  it('a replay beyond the schedule fails after its one attempt; 2xx only is success', () => {
    expect(nextAttemptAt([1, 1], 4, 4, new Date())).toBeNull();
    expect([200, 204, 299].every(isSuccess)).toBe(true);
    expect([null, 199, 301, 302, 400, 500].some(isSuccess)).toBe(false);
  });
});

describe('outbound guard', () => {
  const guard = new OutboundGuard('');
  it.each([
    ['127.0.0.1', 'loopback'],
    ['10.0.0.1', 'private'],
    ['172.16.5.4', 'private'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'carrier-grade NAT'],
    ['169.254.169.254', 'link-local'],
    ['0.0.0.0', 'this network'],
    ['::1', 'loopback'],
    ['::ffff:127.0.0.1', 'IPv4-mapped'],
    ['::ffff:8.8.8.8', 'IPv4-mapped'],
    ['fd00::1', 'unique-local'],
    ['fe80::1', 'link-local'],
    ['64:ff9b::a00:1', 'NAT64 private'],
  ])('refuses %s (%s)', (ip, why) => {
    expect(nonPublicReason(ip)).toContain(why);
    expect(guard.check('h', ip).allowed).toBe(false);
  });

  it.each(['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111', '64:ff9b::808:808'])(
    'allows public %s',
    (ip) => {
      expect(guard.check('h', ip)).toEqual({ allowed: true });
    },
  );

  it('a host name resolving to loopback is refused; the allow list exempts hosts, IPs and CIDRs', async () => {
    await expect(guard.resolve('localhost')).rejects.toMatchObject({ name: 'OutboundRefusedError' });
    await expect(new OutboundGuard('LocalHost').resolve('localhost')).resolves.toEqual(
      expect.arrayContaining([expect.objectContaining({ address: '127.0.0.1' })]),
    );
    const g = new OutboundGuard('127.0.0.1, 10.1.0.0/16, [::1]');
    expect(g.check('x', '127.0.0.1').allowed).toBe(true);
    expect(g.check('x', '10.1.2.3').allowed).toBe(true);
    expect(g.check('x', '10.2.0.1').allowed).toBe(false);
    expect(g.check('x', '::1').allowed).toBe(true);
  });

  it('assertUrl: https only, no credentials, and the resolved address must be public', async () => {
    const codeOf = (p: Promise<unknown>) =>
      p.then(
        () => null,
        (e: HallmarkError) => [e.code, e.param, e.message],
      );
    expect(await codeOf(guard.assertUrl('http://8.8.8.8/x', { param: 'url' }))).toEqual([
      'parameter_invalid',
      'url',
      expect.stringContaining('HTTPS'),
    ]);
    expect(await codeOf(guard.assertUrl('https://u:p@8.8.8.8/', { param: 'url' }))).toEqual([
      'parameter_invalid',
      'url',
      expect.stringContaining('credentials'),
    ]);
    for (const u of [
      'https://127.0.0.1/',
      'https://[::1]/',
      'https://localhost/',
      'https://169.254.169.254/latest',
    ])
      expect(await codeOf(guard.assertUrl(u, { param: 'url' }))).toEqual([
        'parameter_invalid',
        'url',
        expect.stringContaining('non-public'),
      ]);
    await expect(guard.assertUrl('https://93.184.216.34/hook', { param: 'url' })).resolves.toBeInstanceOf(
      URL,
    );
  });
});

const envelope = (over: Partial<EventEnvelope>): EventEnvelope =>
  ({
    id: 'evt_x',
    type: 'transaction.completed',
    source: 'vouchers',
    occurred_at: '2025-09-01T10:00:00.000Z',
    enterprise_id: 'ent_1',
    livemode: true,
    request_id: null,
    data: { object: { id: 'txn_1', amount: 150 } },
    ...over,
  }) as EventEnvelope;

describe('event mapping', () => {
  it('versioned types pass through; internal ones do not', () => {
    expect(versionedTypeOf(envelope({}))).toBe('transaction.completed');
    expect(versionedTypeOf(envelope({ type: 'voucher.redeemed' as EventEnvelope['type'] }))).toBeNull();
    expect(versionedTypeOf(envelope({ type: 'key.revoked' as EventEnvelope['type'] }))).toBeNull();
  });

  it('the envelope is {id, type, created_at, data:{object}, api_version YYYY-MM}; data itself when no object', () => {
    expect(JSON.parse(versionedBody(envelope({})))).toEqual({
      id: 'evt_x',
      type: 'transaction.completed',
      created_at: '2025-09-01T10:00:00.000Z',
      data: { object: { id: 'txn_1', amount: 150 } },
      api_version: '2025-09',
      livemode: true,
    });
    const user = envelope({
      type: 'user.created',
      data: { id: 'user_1', email: null, role: 'owner', enterprise_id: 'ent_1' },
    });
    expect(JSON.parse(versionedBody(user)).data.object).toEqual({
      id: 'user_1',
      email: null,
      role: 'owner',
      enterprise_id: 'ent_1',
    });
  });

  it('lost and stolen go out as the versioned certificate.reported_stolen and certificate.recovered, the certificate with its report as data.object', () => {
    const object = {
      id: 'cert_1',
      tokenId: 7,
      holderAddress: '0x1',
      stolenReport: { kind: 'stolen', reason: 'Shop break-in', reportedAt: '2026-05-03T10:00:00.000Z' },
    };
    for (const type of ['certificate.reported_stolen', 'certificate.recovered'] as const) {
      const event = envelope({ type, source: 'certificates', data: { object } as never });
      expect(versionedTypeOf(event)).toBe(type);
      expect(enterpriseTypeOf(event)).toBeNull();
      expect(JSON.parse(versionedBody(event))).toMatchObject({ type, data: { object } });
    }
  });

  it('the certificate voucher goes out as enterprise voucher.created, the discount voucher as versioned discount_voucher.created; bulk bodies carry the spec fields', () => {
    const discount = envelope({ type: 'discount_voucher.created', source: 'vouchers' });
    expect(enterpriseTypeOf(discount)).toBeNull();
    expect(versionedTypeOf(discount)).toBe('discount_voucher.created');
    expect(enterpriseTypeOf(envelope({ type: 'certificate_voucher.created', source: 'certificates' }))).toBe(
      'voucher.created',
    );
    expect(enterpriseTypeOf(envelope({ type: 'certificate_voucher.minted', source: 'certificates' }))).toBe(
      'voucher.minted',
    );
    const done = envelope({
      type: 'bulk.job.completed',
      source: 'bulk',
      data: {
        jobId: 'job_1',
        status: 'completed',
        summary: { totalItems: 1, successCount: 1, failureCount: 0, processingTime: 5 },
        shop: 's',
        orderId: 'o',
        orderNumber: '1001',
        voucher_all: [],
      } as never,
    });
    expect(JSON.parse(enterpriseBody(done, 'bulk.job.completed'))).toMatchObject({
      event: 'bulk.job.completed',
      timestamp: '2025-09-01T10:00:00.000Z',
      jobId: 'job_1',
      summary: { totalItems: 1 },
      shop: 's',
      orderId: 'o',
      orderNumber: '1001',
    });
  });
});

describe('input rules', () => {
  const err = (fn: () => unknown) => {
    try {
      fn();
    } catch (e) {
      return {
        code: (e as HallmarkError).code,
        param: (e as HallmarkError).param,
        message: (e as HallmarkError).message,
      };
    }
    return null;
  };
  it('url must be https', () => {
    expect(err(() => parseUrl('http://example.com/x'))).toMatchObject({
      code: 'parameter_invalid',
      param: 'url',
    });
    expect(err(() => parseUrl(undefined))).toMatchObject({ code: 'parameter_missing', param: 'url' });
    expect(parseUrl('https://example.com/x')).toBe('https://example.com/x');
  });
  it('an unknown event type is refused naming it and its position', () => {
    expect(err(() => parseVersionedEvents(['user.created', 'user.exploded']))).toMatchObject({
      code: 'parameter_invalid',
      param: 'events[1]',
      message: expect.stringContaining("'user.exploded'"),
    });
    expect(parseVersionedEvents(['user.created', 'user.created'])).toEqual(['user.created']);
  });
  it('secrets: whsec_ + base64 of 24..64 bytes for endpoints; 64 hex for subscriptions', () => {
    expect(parseEndpointSecret(generateEndpointSecret())).toMatch(/^whsec_/);
    expect(err(() => parseEndpointSecret('whsec_short'))).toMatchObject({ param: 'secret' });
    expect(err(() => parseEndpointSecret('plain-text-secret-of-some-length-xx'))).toMatchObject({
      param: 'secret',
    });
    expect(parseSubscriptionSecret('AB'.repeat(32))).toBe('AB'.repeat(32));
    expect(err(() => parseSubscriptionSecret('ab'.repeat(31)))).toMatchObject({ param: 'secret' });
  });
});

describe('delivery ids', () => {
  it('the same (target, event) always gets the same well-formed dlv_ id, any other pair another', () => {
    const id = deliveryIdFor('webhook_A', 'evt_1');
    expect(isId('delivery', id)).toBe(true);
    expect(deliveryIdFor('webhook_A', 'evt_1')).toBe(id);
    const others = [
      deliveryIdFor('webhook_B', 'evt_1'),
      deliveryIdFor('webhook_A', 'evt_2'),
      deliveryIdFor('lsn_A', 'evt_1'),
      // The separator keeps the pair apart: ("ab", "c") is not ("a", "bc").
      deliveryIdFor('webhook_Ae', 'vt_1'),
    ];
    expect(new Set([id, ...others]).size).toBe(5);
  });
});
