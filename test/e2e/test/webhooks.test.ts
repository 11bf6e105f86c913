// Webhook endpoints and enterprise subscriptions through the real gateway and notify
// process (spec › Endpoints › Webhook endpoints; Enterprise webhook subscription): HTTPS
// only, event types named, the outbound guard at create, CRUD, scopes, test mode, the
// delivery/test/rotate extensions, and the unversioned enterprise form. Delivery itself
// is proven in services/notify/test (this stack's notify cannot trust a test CA).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { newId } from '@hallmark/kit';
import { startTestStack, type TestStack } from '../src/index.js';

let stack: TestStack;
let owner: string;
const PUBLIC_URL = 'https://93.184.216.34/hooks/hallmark';

beforeAll(async () => {
  stack = await startTestStack();
  owner = await stack.token({ ent: newId('enterprise'), role: 'owner' });
}, 120_000);

afterAll(async () => {
  await stack?.close();
}, 60_000);

const create = (auth: string, body: unknown) => stack.call('POST', '/api/v1/webhooks', { auth, body });

async function apiKey(type: 'production' | 'test', permissions: string[]): Promise<string> {
  const res = await stack.call('POST', '/api/v1/api-keys', {
    auth: owner,
    body: { name: `wh-${type}`, type, permissions },
  });
  expect(res.status).toBe(201);
  return res.body.key as string;
}

describe('POST /api/v1/webhooks', () => {
  it('creates an endpoint: 201 {id webhook_…, url, events, status active, secret whsec_…, created_at}', async () => {
    const res = await create(owner, {
      url: PUBLIC_URL,
      events: ['transaction.completed', 'user.created'],
      description: 'ops',
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      id: expect.stringMatching(/^webhook_[0-9A-Za-z]{24}$/),
      url: PUBLIC_URL,
      events: ['transaction.completed', 'user.created'],
      status: 'active',
      secret: expect.stringMatching(/^whsec_/),
      description: 'ops',
      livemode: true,
    });
    expect(new Date(res.body.created_at).toISOString()).toBe(res.body.created_at);
  });

  it.each([
    ['http://93.184.216.34/x', 'an http url'],
    ['https://127.0.0.1/x', 'loopback'],
    ['https://10.0.0.1/x', 'a private address'],
    ['https://169.254.169.254/latest/meta-data/', 'the metadata address'],
    ['https://[::1]/x', 'IPv6 loopback'],
    ['https://localhost/x', 'a host name resolving to loopback'],
  ])('refuses %s (%s): 400 parameter_invalid, param url', async (url) => {
    const res = await create(owner, { url, events: ['user.created'] });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({
      type: 'invalid_request_error',
      code: 'parameter_invalid',
      param: 'url',
    });
    expect(res.body.error.request_id).toMatch(/^req_/);
  });

  it('refuses an unknown event type naming it, missing fields and unknown fields', async () => {
    const unknown = await create(owner, { url: PUBLIC_URL, events: ['user.created', 'user.levitated'] });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toMatchObject({ code: 'parameter_invalid', param: 'events[1]' });
    expect(unknown.body.error.message).toContain('user.levitated');
    const missing = await create(owner, { url: PUBLIC_URL });
    expect(missing.body.error).toMatchObject({ code: 'parameter_missing', param: 'events' });
    const extra = await create(owner, { url: PUBLIC_URL, events: ['user.created'], colour: 'red' });
    expect(extra.body.error).toMatchObject({ code: 'parameter_unknown', param: 'colour' });
  });

  it('needs admin.* (or a session): a key with other scopes is 403, an admin key works', async () => {
    const reader = await apiKey('production', ['transactions.read']);
    const denied = await create(reader, { url: PUBLIC_URL, events: ['user.created'] });
    expect(denied.status).toBe(403);
    expect(denied.body.error).toMatchObject({ code: 'insufficient_permissions' });
    const admin = await apiKey('production', ['admin.*']);
    expect((await create(admin, { url: PUBLIC_URL, events: ['user.created'] })).status).toBe(201);
    expect((await stack.call('GET', '/api/v1/webhooks')).status).toBe(401);
  });
});

describe('list, get, PATCH, DELETE and the delivery extensions', () => {
  it('walks one endpoint through its life', async () => {
    const ent = newId('enterprise');
    const session = await stack.token({ ent });
    const made = (await create(session, { url: PUBLIC_URL, events: ['payment.succeeded'] })).body;

    const list = await stack.call('GET', '/api/v1/webhooks', { auth: session });
    expect(list.status).toBe(200);
    expect(list.body.webhooks.map((w: { id: string }) => w.id)).toEqual([made.id]);
    expect(list.body.webhooks[0].secret).toBeUndefined();
    expect(list.body.pagination).toEqual({ page: 1, limit: 20, total: 1, total_pages: 1 });

    const got = await stack.call('GET', `/api/v1/webhooks/${made.id}`, { auth: session });
    expect(got.body).toMatchObject({
      id: made.id,
      url: PUBLIC_URL,
      status: 'active',
      events: ['payment.succeeded'],
    });
    expect(got.body.secret).toBeUndefined();

    const patched = await stack.call('PATCH', `/api/v1/webhooks/${made.id}`, {
      auth: session,
      body: { events: ['payment.failed', 'payment.refunded'], status: 'disabled' },
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({
      events: ['payment.failed', 'payment.refunded'],
      status: 'disabled',
    });
    const badStatus = await stack.call('PATCH', `/api/v1/webhooks/${made.id}`, {
      auth: session,
      body: { status: 'failed' },
    });
    expect(badStatus.body.error).toMatchObject({ code: 'parameter_invalid', param: 'status' });
    const badUrl = await stack.call('PATCH', `/api/v1/webhooks/${made.id}`, {
      auth: session,
      body: { url: 'https://192.168.1.1/' },
    });
    expect(badUrl.body.error).toMatchObject({ code: 'parameter_invalid', param: 'url' });

    const test = await stack.call('POST', `/api/v1/webhooks/${made.id}/test`, { auth: session });
    expect(test.status).toBe(202);
    expect(test.body).toMatchObject({
      id: expect.stringMatching(/^dlv_/),
      webhook_id: made.id,
      event_type: 'payment.failed',
      status: 'pending',
    });
    const deliveries = await stack.call('GET', `/api/v1/webhooks/${made.id}/deliveries`, { auth: session });
    expect(deliveries.status).toBe(200);
    expect(deliveries.body.deliveries.map((d: { id: string }) => d.id)).toEqual([test.body.id]);
    const retry = await stack.call(
      'POST',
      `/api/v1/webhooks/${made.id}/deliveries/${newId('delivery')}/retry`,
      { auth: session },
    );
    expect(retry.status).toBe(404);

    const rotated = await stack.call('POST', `/api/v1/webhooks/${made.id}/rotate-secret`, {
      auth: session,
      body: { overlap_seconds: 600 },
    });
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(made.secret);
    expect(rotated.body.previous_secret_expires_at).toEqual(expect.any(String));

    // Another enterprise sees nothing.
    const stranger = await stack.token();
    expect((await stack.call('GET', `/api/v1/webhooks/${made.id}`, { auth: stranger })).status).toBe(404);

    const del = await stack.call('DELETE', `/api/v1/webhooks/${made.id}`, { auth: session });
    expect(del.body).toEqual({ id: made.id, deleted: true });
    const again = await stack.call('DELETE', `/api/v1/webhooks/${made.id}`, { auth: session });
    expect(again.status).toBe(404);
    expect(again.body.error).toMatchObject({ type: 'resource_error', code: 'resource_not_found' });
  });

  it('a test-mode key manages test-mode endpoints only', async () => {
    const testKey = await apiKey('test', ['admin.*']);
    const live = (await create(owner, { url: PUBLIC_URL, events: ['user.created'] })).body;
    const mine = await create(testKey, { url: PUBLIC_URL, events: ['user.created'] });
    expect(mine.body.livemode).toBe(false);
    expect((await stack.call('GET', `/api/v1/webhooks/${live.id}`, { auth: testKey })).status).toBe(404);
    const list = await stack.call('GET', '/api/v1/webhooks', { auth: testKey });
    expect(list.body.webhooks.map((w: { id: string }) => w.id)).toEqual([mine.body.id]);
  });
});

describe('/api/enterprise/webhooks (session token)', () => {
  it('creates {success, webhook:{id wh_…, url, events, enabled}}, lists, gets and deletes', async () => {
    const session = await stack.token();
    const secret = 'c0ffee'.repeat(10) + 'abcd';
    const res = await stack.call('POST', '/api/enterprise/webhooks', {
      auth: session,
      body: { url: PUBLIC_URL, events: ['bulk.job.completed', 'bulk.job.failed'], secret, enabled: true },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      success: true,
      webhook: {
        id: expect.stringMatching(/^wh_/),
        url: PUBLIC_URL,
        events: ['bulk.job.completed', 'bulk.job.failed'],
        enabled: true,
      },
    });
    const id = res.body.webhook.id as string;
    const list = await stack.call('GET', '/api/enterprise/webhooks', { auth: session });
    expect(list.body).toMatchObject({ success: true, webhooks: [{ id }] });
    expect(
      (await stack.call('GET', `/api/enterprise/webhooks/${id}`, { auth: session })).body.webhook.id,
    ).toBe(id);
    expect(
      (await stack.call('DELETE', `/api/enterprise/webhooks/${id}`, { auth: session })).body,
    ).toMatchObject({ success: true });
    const gone = await stack.call('GET', `/api/enterprise/webhooks/${id}`, { auth: session });
    expect(gone.status).toBe(404);
    expect(gone.body).toMatchObject({ success: false, code: 'resource_not_found' });
  });

  it('refuses http and private urls, unknown events, bad secrets — and API keys', async () => {
    const session = await stack.token();
    const post = (body: unknown, auth = session) =>
      stack.call('POST', '/api/enterprise/webhooks', { auth, body });
    const http = await post({ url: 'http://93.184.216.34/x', events: ['voucher.created'] });
    expect(http.status).toBe(400);
    expect(http.body).toMatchObject({ success: false, code: 'parameter_invalid', param: 'url' });
    expect((await post({ url: 'https://169.254.169.254/', events: ['voucher.created'] })).body).toMatchObject(
      { param: 'url' },
    );
    expect((await post({ url: PUBLIC_URL, events: ['user.created'] })).body).toMatchObject({
      param: 'events[0]',
    });
    expect((await post({ url: PUBLIC_URL, events: ['voucher.minted'], secret: 'short' })).body).toMatchObject(
      { param: 'secret' },
    );
    const generated = await post({ url: PUBLIC_URL, events: ['voucher.minted'] });
    expect(generated.body.webhook.secret).toMatch(/^[0-9a-f]{64}$/);
    const key = await apiKey('production', ['admin.*']);
    expect((await post({ url: PUBLIC_URL, events: ['voucher.minted'] }, key)).status).toBe(401);
  });
});
