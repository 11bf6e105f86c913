// Security issue 27, finding 1: one request must never take a service down. A field name is
// the client's JSON key, and an error naming it once went into gRPC metadata unencoded:
// grpc-js threw on `é` or a lone surrogate outside the request, and the platform, notify or
// bulk process exited (every route of that service then answered 503). Each request below
// is the review's, through the gateway; each answers 4xx naming the field, and every process
// keeps its pid. The second part: a process that does die is said, restarted and counted.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { SERVICE_NAMES } from '@hallmark/kit';
import { orderBody, idempotencyKeyOf } from '../../src/bulk.js';
import { startTestStack, type TestStack } from '../../src/index.js';
import { until } from '../../src/platform.js';
import type { RestartEvent } from '@hallmark/devstack';

let stack: TestStack;
const restarts: RestartEvent[] = [];

beforeAll(async () => {
  stack = await startTestStack({
    metrics: true,
    restartOnCrash: true,
    onRestart: (e) => restarts.push(e),
    env: {
      HALLMARK_PLATFORM_API_KEY: 'hallmark-e2e-app',
      HALLMARK_PLATFORM_API_SECRET: 'e2e-app-secret-0123456789',
      HALLMARK_PLATFORM_APP_URL: 'https://app.example.test/platform/installed',
    },
  });
}, 180_000);

afterAll(async () => {
  await stack?.close();
}, 60_000);

const pids = () =>
  Object.fromEntries(['gateway', ...SERVICE_NAMES].map((n) => [n, stack.processes.get(n)?.pid]));

const alive = (pid: number | undefined) => {
  try {
    return pid !== undefined && process.kill(pid, 0);
  } catch {
    return false;
  }
};

/** A template with one declared variable, for the render requests. */
async function template(auth: string): Promise<string> {
  const res = await stack.call('POST', '/api/v1/templates', {
    auth,
    body: {
      name: 'Note',
      type: 'invoice',
      format: 'html',
      template: '<p>{{customer}}</p>',
      variables: [{ name: 'customer', type: 'string', required: false }],
    },
  });
  expect(res.status).toBe(201);
  return res.body.id;
}

describe('a field name of any text is answered within its request', () => {
  it.each([
    ['a non-ASCII', 'é'],
    ['an emoji', '🙂'],
    ['a right-to-left', 'اسم'],
  ])(
    'platform, notify and bulk answer 4xx naming %s key, and every process keeps its pid',
    async (_what, key) => {
      const before = pids();
      const auth = await stack.token();

      // The review's platform request: a product mapping keyed by the odd text.
      const platform = await stack.call('PATCH', '/api/platform/integration/settings', {
        auth,
        body: {
          shop: 'e2e-boutique.myshopify.com',
          settings: { productTemplateMapping: { [key]: { templateId: 'tmpl_x' } } },
        },
      });
      expect(platform.status).toBe(400);
      expect(platform.body).toMatchObject({ success: false, code: 'parameter_invalid' });
      expect(platform.body.param).toBe(`productTemplateMapping.${key}`);

      // The review's notify request: a variable the template does not declare.
      const id = await template(auth);
      const render = await stack.call('POST', `/api/v1/templates/${id}/render`, {
        auth,
        body: { variables: { [key]: 1 } },
      });
      expect(render.status).toBe(400);
      expect(render.body.error).toMatchObject({ code: 'parameter_unknown', param: `variables.${key}` });

      // Bulk: the JSON order form with an unknown field in the customer.
      const body = orderBody(1);
      const customer = { ...body.externalContext.customer, [key]: 'x' };
      const bulk = await stack.call('POST', '/api/bulk-mint', {
        auth,
        body: { ...body, externalContext: { ...body.externalContext, customer } },
        headers: { 'idempotency-key': idempotencyKeyOf(body) },
      });
      expect(bulk.status).toBe(400);
      expect(bulk.body).toMatchObject({
        code: 'parameter_unknown',
        param: `externalContext.customer.${key}`,
      });

      expect(pids()).toEqual(before);
      for (const pid of Object.values(before)) expect(alive(pid)).toBe(true);
      // And each still serves.
      const again = await stack.call('POST', `/api/v1/templates/${id}/render`, {
        auth,
        body: { variables: { customer: 'Ada' } },
      });
      expect(again.status).toBe(200);
      expect(restarts).toEqual([]);
    },
  );

  it('a lone surrogate in a key is refused at the gateway as 400 parameter_invalid, as NUL is', async () => {
    const before = pids();
    const auth = await stack.token();
    const platform = await stack.call('PATCH', '/api/platform/integration/settings', {
      auth,
      raw: '{"shop":"e2e-boutique.myshopify.com","settings":{"productTemplateMapping":{"\\ud800":{}}}}',
      headers: { 'content-type': 'application/json' },
    });
    expect(platform.status).toBe(400);
    expect(platform.body).toMatchObject({
      code: 'parameter_invalid',
      param: 'settings.productTemplateMapping',
    });
    const id = await template(auth);
    const render = await stack.call('POST', `/api/v1/templates/${id}/render`, {
      auth,
      raw: '{"variables":{"\\ud800":1}}',
      headers: { 'content-type': 'application/json' },
    });
    expect(render.status).toBe(400);
    expect(render.body.error).toMatchObject({ code: 'parameter_invalid', param: 'variables' });
    expect(pids()).toEqual(before);
  });
});

describe('a process that exits is restarted and counted', () => {
  it('a killed service is said, started again with a new pid, serves, and reports one restart', async () => {
    const auth = await stack.token();
    const id = await template(auth);
    const old = stack.processes.get('notify')!;
    process.kill(old.pid, 'SIGKILL');
    const next = await until('notify to be restarted', async () => {
      const p = stack.processes.get('notify');
      return p && p.pid !== old.pid ? p : null;
    });
    expect(restarts[0]).toMatchObject({ name: 'notify', pid: old.pid, signal: 'SIGKILL', restarts: 1 });
    expect(restarts.some((e) => e.restarted?.pid === next.pid)).toBe(true);
    const render = await until('notify to serve again', async () => {
      const r = await stack.call('POST', `/api/v1/templates/${id}/render`, {
        auth,
        body: { variables: { customer: 'Ada' } },
      });
      return r.status === 200 ? r : null;
    });
    expect(render.status).toBe(200);
    const metrics = await (await fetch(stack.metricsUrls.notify)).text();
    expect(metrics).toMatch(/^hallmark_process_restarts_total\{[^}]*\} 1$/m);
  }, 120_000);
});
