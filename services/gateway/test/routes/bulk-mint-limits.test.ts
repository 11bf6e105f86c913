// The bulk routes' shared retry budget on both limiter stores (in memory, and Redis when it
// runs on 127.0.0.1:6379), and how /openapi.json documents the bulk surface.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { HallmarkError } from '@hallmark/kit';
import { Redis } from 'ioredis';
import { createConnection } from 'node:net';
import { startHarness, type Harness } from './harness.js';
import { bulkJob } from './fixtures.js';

const redisUp = await new Promise<boolean>((resolve) => {
  const socket = createConnection({ host: '127.0.0.1', port: 6379 });
  socket.once('connect', () => (socket.destroy(), resolve(true)));
  socket.once('error', () => resolve(false));
});

let memory: Harness;
let onRedis: Harness | undefined;
let redis: Redis | undefined;
beforeAll(async () => {
  memory = await startHarness();
  if (redisUp) {
    redis = new Redis('redis://127.0.0.1:6379', { lazyConnect: false });
    onRedis = await startHarness({}, { redis });
  }
}, 120_000);
afterAll(async () => {
  await memory.close();
  await onRedis?.close();
  redis?.disconnect();
});
beforeEach(() => {
  memory.reset();
  onRedis?.reset();
});

describe.each([['in-memory', () => memory], ...(redisUp ? [['Redis', () => onRedis!] as const] : [])])(
  'on the %s limiter store',
  (_store, harness) => {
    it('only accepted retries and row fixes use the shared 5-an-hour budget: rejected ones (400, 404) cost nothing, and the 429 names the wait', async () => {
      const h = harness();
      const key = h.keyWith(['bulk:retry']);
      const send = (method: 'POST' | 'PATCH', body?: object) =>
        h.app.inject({
          method,
          url: method === 'POST' ? '/api/bulk-mint/job_A/retry' : '/api/bulk-mint/job_A/items/7',
          headers: key,
          ...(body ? { payload: body } : {}),
        });
      // Rejected: an unknown job (404), a fix the service refuses (400), a fix the schema refuses (400).
      h.answer('bulk', 'retryJob', async () => {
        throw new HallmarkError('resource_not_found', { message: 'No such job.' });
      });
      h.answer('bulk', 'fixItem', async () => {
        throw new HallmarkError('parameter_invalid', { param: 'imageUrl', message: 'No image for row 7.' });
      });
      for (let i = 0; i < 3; i++) expect((await send('POST')).statusCode).toBe(404);
      for (let i = 0; i < 3; i++) expect((await send('PATCH', { name: 'Lamp' })).statusCode).toBe(400);
      for (let i = 0; i < 3; i++) expect((await send('PATCH', {})).statusCode).toBe(400);
      // Accepted: five, whatever the mix, then the budget is spent.
      h.answer('bulk', 'retryJob', async () => ({
        job: bulkJob(),
        retried_count: 2,
        message: 'Retrying 2 items.',
      }));
      h.answer('bulk', 'fixItem', async (r) => ({
        row: r.row,
        name: 'x',
        status: 'failed',
        error: 'Corrected.',
      }));
      const accepted = [];
      for (let i = 0; i < 3; i++) accepted.push(await send('POST'));
      for (let i = 0; i < 2; i++) accepted.push(await send('PATCH', { name: 'Lamp' }));
      expect(accepted.map((r) => r.statusCode)).toEqual([200, 200, 200, 200, 200]);
      expect(accepted.map((r) => r.headers['x-ratelimit-remaining'])).toEqual(['4', '3', '2', '1', '0']);
      const refused = await send('POST');
      expect(refused.statusCode).toBe(429);
      const retryAfter = Number(refused.headers['retry-after']);
      expect(retryAfter).toBeGreaterThan(3500);
      expect(refused.json()).toMatchObject({
        success: false,
        code: 'rate_limit_exceeded',
        retry_after: retryAfter,
        limit_window: 'bulk_retry',
      });
      expect(refused.json().error).toContain(`Retry after ${retryAfter} second(s)`);
      expect(refused.headers['x-ratelimit-limit']).toBe('5');
      expect(refused.headers['x-ratelimit-remaining']).toBe('0');
    });
  },
);

describe('OpenAPI', () => {
  it('documents every bulk route, with security on the authenticated ones and both request forms', async () => {
    const doc = (await memory.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const op = (path: string, method: string) => doc.paths[path]?.[method];
    for (const [path, method, scope] of [
      ['/api/bulk-mint', 'post', 'bulk:mint'],
      ['/api/bulk-mint', 'get', 'bulk:mint'],
      ['/api/bulk-mint/{jobId}', 'get', 'bulk:mint'],
      ['/api/bulk-mint/{jobId}/retry', 'post', 'bulk:retry'],
      ['/api/bulk-mint/{jobId}/cancel', 'post', 'bulk:mint'],
      ['/api/bulk-mint/{jobId}/download/{type}', 'get', 'bulk:mint'],
      ['/api/billing/cost-preview/{count}', 'get', ['billing.read', 'bulk:mint']],
    ] as const) {
      const scopes = typeof scope === 'string' ? [scope] : [...scope];
      expect(op(path, method)?.security).toEqual([
        { bearerAuth: [] },
        { apiKeyHeader: [] },
        { apiKeyQuery: [] },
        { sessionJwt: [] },
      ]);
      expect(op(path, method)['x-required-scopes']).toEqual(scopes);
      expect(op(path, method).operationId).toMatch(/^[a-z][A-Za-z]+$/);
    }
    for (const path of ['/api/bulk-mint/template/csv', '/media/{id}']) {
      expect(op(path, 'get')).toBeDefined();
      expect(op(path, 'get').security).toEqual([]);
    }
    const create = op('/api/bulk-mint', 'post');
    expect(Object.keys(create.requestBody.content).sort()).toEqual([
      'application/json',
      'multipart/form-data',
    ]);
    expect(create.description).toContain('202');
    expect(Object.keys(create.responses)).toEqual(expect.arrayContaining(['201', '202', '409']));
  });
});
