// RecordUsage, GetUsage and ListAuditLogs against real PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { UsageRecord } from '@hallmark/proto/keys/v1/keys';
import {
  CALL,
  createRequest,
  newEnterprise,
  openHarness,
  refusal,
  signIn,
  type Harness,
  type Session,
} from './harness.js';

let h: Harness;
let alice: Session;
beforeAll(async () => {
  h = await openHarness('keys_usage');
  alice = await signIn(h, { ent: newEnterprise(), sub: 'alice' });
});
afterAll(() => h.close());

const newKey = async () => (await h.rpc.createKey(createRequest(alice.principal), CALL)).key!.id;
const usage = (keyId: string, period: string) =>
  h.rpc.getUsage({ principal: alice.principal, key_id: keyId, period }, CALL);
const rec = (keyId: string, over: Partial<UsageRecord> = {}): UsageRecord => ({
  key_id: keyId,
  method: 'GET',
  path: '/api/v1/vouchers',
  status_code: 200,
  latency_ms: 10,
  ip_address: '203.0.113.5',
  at: new Date(h.clock.now - 60_000).toISOString(),
  ...over,
});

describe('RecordUsage', () => {
  it('a batch is applied once, however often the gateway sends it', async () => {
    const k = await newKey();
    const batch = { batch_id: 'batch-once', records: [rec(k), rec(k, { status_code: 500, latency_ms: 30 })] };
    expect(await h.rpc.recordUsage(batch, CALL)).toEqual({ accepted: 2 });
    expect(await h.rpc.recordUsage(batch, CALL)).toEqual({ accepted: 2 });
    expect(await usage(k, '24h')).toMatchObject({
      total_requests: 2,
      successful_requests: 1,
      failed_requests: 1,
      average_latency: 20,
    });
  });

  it('concurrent batches on the same keys all land', async () => {
    const [a, b] = [await newKey(), await newKey()];
    await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        h.rpc.recordUsage(
          { batch_id: `par-${i}`, records: [rec(i % 2 ? a : b), rec(i % 2 ? b : a), rec(a)] },
          CALL,
        ),
      ),
    );
    expect((await usage(a, '24h')).total_requests).toBe(16);
    expect((await usage(b, '24h')).total_requests).toBe(8);
  });

  it('records of unknown keys are dropped; last_used_at follows the newest record', async () => {
    const k = await newKey();
    const at = new Date(h.clock.now - 5_000).toISOString();
    const res = await h.rpc.recordUsage(
      {
        batch_id: 'with-ghost',
        records: [
          rec(k, { at }),
          rec('apikey_ghostghostghostghostghos'),
          rec(k, { at: new Date(h.clock.now - 50_000).toISOString() }),
        ],
      },
      CALL,
    );
    expect(res.accepted).toBe(2);
    const got = await h.rpc.getKey({ principal: alice.principal, key_id: k }, CALL);
    expect(got.last_used_at).toBe(at);
    expect((await refusal(h.rpc.recordUsage({ batch_id: '', records: [] }, CALL))).param).toBe('batchId');
  });
});

describe('GetUsage', () => {
  it('aggregates totals, successes, failures and latency per endpoint over the period', async () => {
    const k = await newKey();
    const day = 86_400_000;
    await h.rpc.recordUsage(
      {
        batch_id: 'periods',
        records: [
          rec(k, { latency_ms: 10 }),
          rec(k, { latency_ms: 20, status_code: 404 }),
          rec(k, { method: 'POST', path: '/api/v1/vouchers/redeem', status_code: 201, latency_ms: 40 }),
          rec(k, { at: new Date(h.clock.now - 3 * day).toISOString(), latency_ms: 100 }),
          rec(k, { at: new Date(h.clock.now - 20 * day).toISOString() }),
        ],
      },
      CALL,
    );
    expect(await usage(k, '24h')).toEqual({
      key_id: k,
      period: '24h',
      total_requests: 3,
      successful_requests: 2,
      failed_requests: 1,
      average_latency: 23.33,
      endpoints: [
        { path: '/api/v1/vouchers', method: 'GET', requests: 2, avg_latency: 15 },
        { path: '/api/v1/vouchers/redeem', method: 'POST', requests: 1, avg_latency: 40 },
      ],
    });
    expect((await usage(k, '7d')).total_requests).toBe(4);
    expect((await usage(k, '')).period).toBe('7d');
    expect((await usage(k, '30d')).total_requests).toBe(5);
    const err = await refusal(usage(k, '1y'));
    expect([err.code, err.param]).toEqual(['parameter_invalid', 'period']);
  });
});

describe('ListAuditLogs', () => {
  it('lists every action newest first, with the fields each action has', async () => {
    const k = await newKey();
    const p = { principal: alice.principal, key_id: k, ip_address: '198.51.100.7' };
    h.clock.advance(1000);
    await h.rpc.updateKey(
      {
        ...p,
        name: 'renamed',
        permissions: [],
        set_permissions: false,
        allowed_ips: [],
        set_allowed_ips: false,
      },
      CALL,
    );
    h.clock.advance(1000);
    await h.rpc.recordUsage(
      { batch_id: 'audit', records: [rec(k, { at: new Date(h.clock.now).toISOString(), status_code: 403 })] },
      CALL,
    );
    h.clock.advance(1000);
    await h.rpc.shareKey({ ...p, user_ids: [alice.userId], permissions: ['read'] }, CALL);
    h.clock.advance(1000);
    await h.rpc.rotateKey(p, CALL);
    h.clock.advance(1000);
    await h.rpc.revokeKey(p, CALL);
    const { logs } = await h.rpc.listAuditLogs({ principal: alice.principal, key_id: k, limit: 0 }, CALL);
    expect(logs.map((l) => l.action)).toEqual([
      'key.revoked',
      'key.rotated',
      'key.shared',
      'key.used',
      'key.updated',
      'key.created',
    ]);
    expect(logs[0]).toMatchObject({
      user_id: 'alice', // the session's sub
      ip_address: '198.51.100.7',
      endpoint: '',
      status_code: 0,
    });
    expect(logs[3]).toMatchObject({
      user_id: '',
      ip_address: '203.0.113.5',
      endpoint: 'GET /api/v1/vouchers',
      status_code: 403,
    });
    expect(logs[5]).toMatchObject({ user_id: 'alice', ip_address: '' });
    for (let i = 1; i < logs.length; i++) expect(logs[i - 1]!.timestamp >= logs[i]!.timestamp).toBe(true);
    expect(
      (await h.rpc.listAuditLogs({ principal: alice.principal, key_id: k, limit: 2 }, CALL)).logs,
    ).toHaveLength(2);
    expect(
      (await refusal(h.rpc.listAuditLogs({ principal: alice.principal, key_id: k, limit: 500 }, CALL))).param,
    ).toBe('limit');
  });
});
