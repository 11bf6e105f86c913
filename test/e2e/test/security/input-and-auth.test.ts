// Security group, findings 3, 5 and 8 (caps) of the review (docs/security.md), proven through
// the real gateway on one stack. Each test failed on the code before its fix.
//
// 3. NUL and other C0 controls never reach PostgreSQL: 400 parameter_invalid naming the
//    field, in every route (one gateway rule) and in what services parse themselves (the
//    bulk order form, CSV, ZIP names); no route answers 5xx to NUL, C0, lone surrogates or
//    invalid UTF-8 in any path parameter or body string.
// 5. Failed authentication is throttled per client address, without locking out a valid key.
// 8. Session tokens live at most a day; /readyz tells the public only ready or not.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { newId } from '@hallmark/kit';
import { SignJWT } from 'jose';
import { csvForm, idempotencyKeyOf, orderBody, png, zipOf } from '../../src/bulk.js';
import { fill, fuzzOperations, hostileBody, send, type Credentials } from '../../src/fuzz.js';
import { startTestStack, type TestStack } from '../../src/index.js';
import { callWithKey, createKey, unknownWellFormedKey } from '../../src/keys.js';

let stack: TestStack;
let owner: string;
let adminKey: string;

beforeAll(async () => {
  stack = await startTestStack();
  owner = await stack.token();
  adminKey = (await createKey(stack, owner, { name: 'sec admin', rateLimit: 100_000 })).key;
}, 120_000);

afterAll(async () => {
  await stack?.close();
}, 60_000);

const NUL = 'a\u0000b';
/** A high surrogate with no low one after it: no Unicode text, though JSON's `\ud800` makes it. */
const LONE = '\ud800';

/** How many items a list answer holds (its first array, however the list is wrapped). */
function countOf(body: unknown): number {
  const arrays = Object.values((body ?? {}) as Record<string, unknown>).filter(Array.isArray);
  if (arrays.length === 0) throw new Error(`not a list: ${JSON.stringify(body).slice(0, 200)}`);
  return (arrays[0] as unknown[]).length;
}

function expectRefusal(res: { status: number; body: any; text: string }, param: string) {
  const e = res.body?.error?.code ? res.body.error : res.body;
  expect({ status: res.status, code: e?.code, param: e?.param }).toEqual({
    status: 400,
    code: 'parameter_invalid',
    param,
  });
}

describe('finding 3: NUL and C0 controls are refused by name, never a 5xx', () => {
  const bodies: [string, string, Record<string, unknown>, string][] = [
    [
      'an API key name',
      '/api/v1/api-keys',
      { name: NUL, type: 'production', permissions: ['users.read'] },
      'name',
    ],
    [
      'a discount voucher description',
      '/api/v1/vouchers',
      { code: 'NULL0001', type: 'percentage', value: 5, description: NUL },
      'description',
    ],
    [
      'a webhook description',
      '/api/v1/webhooks',
      { url: 'https://93.184.216.34/hooks', events: ['user.created'], description: NUL },
      'description',
    ],
    [
      'a template name',
      '/api/v1/templates',
      { name: NUL, type: 'invoice', format: 'html', template: '<p>hi</p>', variables: [] },
      'name',
    ],
    [
      'a template body',
      '/api/v1/templates',
      { name: 'T', type: 'invoice', format: 'html', template: `<p>${NUL}</p>`, variables: [] },
      'template',
    ],
    [
      'a nested variable name',
      '/api/v1/templates',
      {
        name: 'T',
        type: 'invoice',
        format: 'html',
        template: '{{x}}',
        variables: [{ name: NUL, type: 'string' }],
      },
      'variables[0].name',
    ],
    [
      'a bell (C0) in an API key name',
      '/api/v1/api-keys',
      { name: 'ring\u0007', type: 'production', permissions: ['users.read'] },
      'name',
    ],
    // Issue 27, finding 5: a lone surrogate is refused like NUL (jsonb refused it: a 500).
    [
      'a lone high surrogate in a discount voucher description',
      '/api/v1/vouchers',
      { code: 'SURR0001', type: 'percentage', value: 5, description: `x${LONE}` },
      'description',
    ],
    [
      'a lone low surrogate in a template name',
      '/api/v1/templates',
      { name: '\udfffT', type: 'invoice', format: 'html', template: '<p>hi</p>', variables: [] },
      'name',
    ],
  ];

  it.each(bodies)(
    '%s → 400 parameter_invalid naming the field; nothing is created',
    async (_l, url, body, param) => {
      const before = countOf((await stack.call('GET', url, { auth: owner })).body);
      const res = await stack.call('POST', url, { auth: owner, body });
      expectRefusal(res, param);
      expect(countOf((await stack.call('GET', url, { auth: owner })).body)).toBe(before);
    },
  );

  it('keeps tab, line feed and carriage return in free text', async () => {
    const res = await stack.call('POST', '/api/v1/vouchers', {
      auth: owner,
      body: { code: 'TABS0001', type: 'percentage', value: 5, description: 'one\ttwo\r\nthree' },
    });
    expect(res.status).toBe(201);
    expect(res.body.description).toBe('one\ttwo\r\nthree');
  });

  it('names a query parameter, and answers 400 or 404 to NUL in a path parameter (public routes too)', async () => {
    expectRefusal(await stack.call('GET', '/api/v1/templates?type=a%00b', { auth: owner }), 'type');
    for (const url of ['/api/v1/api-keys/%00', '/api/v1/vouchers/vouch_%00', '/media/%00', '/verify/%00']) {
      const res = await stack.call('GET', url, { auth: url.startsWith('/api/') ? owner : undefined });
      expect({ url, ok: [400, 404].includes(res.status) }).toEqual({ url, ok: true });
    }
  });

  it('the bulk order form (parsed by the bulk service) names metadata[0].name; no job exists', async () => {
    const body = orderBody(1);
    body.metadata = [{ ...(body.metadata[0] as object), name: NUL }];
    const res = await stack.call('POST', '/api/bulk-mint', {
      auth: owner,
      body,
      headers: { 'idempotency-key': idempotencyKeyOf(body) },
    });
    expectRefusal(res, 'metadata[0].name');
    const custom = orderBody(1);
    custom.metadata = [{ ...(custom.metadata[0] as object), [`col${NUL}`]: 'x' }];
    const res2 = await stack.call('POST', '/api/bulk-mint', {
      auth: owner,
      body: custom,
      headers: { 'idempotency-key': idempotencyKeyOf(custom) },
    });
    expect([res2.status, res2.body.code]).toEqual([400, 'parameter_invalid']);
    const jobs = await stack.call('GET', '/api/bulk-mint', { auth: owner });
    expect(jobs.body.data.jobs).toEqual([]);
  });

  it('the bulk order form with a lone surrogate in metadata[0].name is a 400 naming it (was 500); no job exists', async () => {
    const body = orderBody(1);
    body.metadata = [{ ...(body.metadata[0] as object), name: LONE }];
    const res = await stack.call('POST', '/api/bulk-mint', {
      auth: owner,
      body,
      headers: { 'idempotency-key': idempotencyKeyOf(body) },
    });
    expectRefusal(res, 'metadata[0].name');
    const custom = orderBody(1);
    custom.metadata = [{ ...(custom.metadata[0] as object), note: `a${LONE}b` }];
    const res2 = await stack.call('POST', '/api/bulk-mint', {
      auth: owner,
      body: custom,
      headers: { 'idempotency-key': idempotencyKeyOf(custom) },
    });
    expect([res2.status, res2.body.code]).toEqual([400, 'parameter_invalid']);
    const jobs = await stack.call('GET', '/api/bulk-mint', { auth: owner });
    expect(jobs.body.data.jobs).toEqual([]);
  });

  it('a CSV cell with NUL and a ZIP entry named with NUL are 400s, before any job exists', async () => {
    const upload = async (form: FormData) => {
      const res = await fetch(`${stack.gatewayUrl}/api/bulk-mint`, {
        method: 'POST',
        headers: { authorization: `Bearer ${owner}` },
        body: form,
      });
      return { status: res.status, body: (await res.json()) as any };
    };
    const header = 'name,description,category,recipientEmail,imageFile';
    const byUrl = 'name,description,category,recipientEmail,imageUrl';
    const csv = await upload(
      csvForm(`${byUrl}\nWatch${'\u0000'},d,c,a@example.com,https://x.example/1.png\n`),
    );
    expect([csv.status, csv.body.code, csv.body.param]).toEqual([400, 'parameter_invalid', 'metadata']);
    const zip = await zipOf([{ name: `evil${'\u0000'}.png`, data: png('z') }]);
    const named = await upload(csvForm(`${header}\nWatch,d,c,a@example.com,evil.png\n`, zip));
    expect([named.status, named.body.code, named.body.param]).toEqual([400, 'parameter_invalid', 'images']);
    const jobs = await stack.call('GET', '/api/bulk-mint', { auth: owner });
    expect(jobs.body.data.jobs).toEqual([]);
  });

  it('lone surrogates in a name or a path answer without a 5xx', async () => {
    const res = await stack.call('POST', '/api/v1/api-keys', {
      auth: owner,
      body: { name: 'half \ud800 pair', type: 'production', permissions: ['users.read'] },
    });
    expect(res.status).toBeLessThan(500);
    const path = await stack.call('GET', '/api/v1/api-keys/%ED%A0%80', { auth: owner });
    expect(path.status).toBeLessThan(500);
  });

  it('fuzz: every operation of /openapi.json, hostile text in every path parameter and body string: no 5xx', async () => {
    const creds: Credentials = { session: owner, adminKey };
    const ops = await fuzzOperations(stack);
    expect(ops.length).toBeGreaterThan(30);
    const hostile = { nul: NUL, bell: 'x\u0007', surrogate: '\ud800', nulOnly: '\u0000' };
    const pathValues = {
      nul: '%00',
      c0: 'a%01b',
      surrogate: '%ED%A0%80',
      badUtf8: '%C3%28',
      long: '9'.repeat(400),
    };
    const fiveHundreds: string[] = [];
    for (const op of ops) {
      if (op.params.length > 0)
        for (const [label, v] of Object.entries(pathValues)) {
          const res = await send(stack, creds, op, fill(op, v), op.bodyStrings.length ? {} : undefined);
          if (res.status >= 500) fiveHundreds.push(`${op.method} ${op.path} [path ${label}] ${res.status}`);
        }
      if (op.bodyStrings.length + op.bodyStringArrays.length > 0)
        for (const [label, v] of Object.entries(hostile)) {
          const body = hostileBody(op, v);
          const res = await send(stack, creds, op, fill(op, newId('certificate')), body);
          if (res.status >= 500) fiveHundreds.push(`${op.method} ${op.path} [body ${label}] ${res.status}`);
          if (label !== 'surrogate' && ![400, 401, 403, 404, 429].includes(res.status))
            fiveHundreds.push(`${op.method} ${op.path} [body ${label}] not refused: ${res.status}`);
        }
    }
    expect(fiveHundreds).toEqual([]);
  }, 120_000);
});

describe('finding 8: session lifetimes are capped; /readyz tells the public only ready or not', () => {
  const sign = (iat: number, exp: number) =>
    new SignJWT({ ent: newId('enterprise'), role: 'owner' })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject('long-lived')
      .setIssuedAt(iat)
      .setExpirationTime(exp)
      .sign(new TextEncoder().encode(stack.secrets.jwtSecret));

  it('refuses a token living longer than 24 h (by iat or from now) with 401; a day or less passes', async () => {
    const now = Math.floor(Date.now() / 1000);
    for (const [iat, exp] of [
      [now, now + 30 * 86_400],
      [now - 60, now + 86_400 + 3600],
      [now + 10 * 86_400, now + 10 * 86_400 + 3600],
    ] as const) {
      const res = await stack.call('GET', '/api/v1/api-keys', { auth: await sign(iat, exp) });
      expect([iat - now, exp - now, res.status, res.body.error.code]).toEqual([
        iat - now,
        exp - now,
        401,
        'invalid_token',
      ]);
    }
    const ok = await stack.call('GET', '/api/v1/api-keys', { auth: await sign(now, now + 86_400) });
    expect(ok.status).toBe(200);
    // The dev tokens `pnpm start` and `pnpm hallmark token` print stay under the cap.
    expect((await stack.call('GET', '/api/v1/api-keys', { auth: await stack.token() })).status).toBe(200);
  });

  it('/readyz answers only ready or not ready, naming no backend', async () => {
    const res = await stack.call('GET', '/readyz');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ready' });
  });
});

describe('finding 5: failed authentication is throttled per client, a valid key is never locked out', () => {
  it('300 wrong keys from one client get 429s with Retry-After; a valid key from the same client still gets 200, and a blocked wrong key costs no lookup', async () => {
    const session = await stack.token();
    const good = await createKey(stack, session, { name: 'the NAT neighbour' });
    expect((await callWithKey(stack, 'GET', '/api/v1/api-keys', good.key)).status).toBe(200);
    const fresh = await createKey(stack, session, { name: 'never used yet' });

    const statuses: number[] = [];
    let retryAfter: string | null = null;
    for (let i = 0; i < 300; i++) {
      const res = await callWithKey(stack, 'GET', '/api/v1/api-keys', unknownWellFormedKey(), 'header');
      statuses.push(res.status);
      if (res.status === 429) retryAfter ??= res.headers.get('retry-after');
    }
    const firstBlocked = statuses.indexOf(429);
    expect(firstBlocked).toBeGreaterThan(0);
    expect(statuses.slice(0, firstBlocked).every((s) => s === 401)).toBe(true);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(240);
    expect(Number(retryAfter)).toBeGreaterThan(0);
    // A wrong session token is refused the same way; a valid one passes.
    expect((await stack.call('GET', '/api/v1/api-keys', { auth: `${session}x` })).status).toBe(429);
    expect((await stack.call('GET', '/api/v1/api-keys', { auth: session })).status).toBe(200);

    // The valid keys of the same address: the one in use, and one issued through the gateway.
    expect((await callWithKey(stack, 'GET', '/api/v1/api-keys', good.key)).status).toBe(200);
    expect((await callWithKey(stack, 'GET', '/api/v1/api-keys', fresh.key, 'header')).status).toBe(200);

    // No lookup while blocked: with the keys service down, a wrong key is still a quick 429.
    await stack.processes.get('keys')!.stop();
    try {
      const res = await callWithKey(stack, 'GET', '/api/v1/api-keys', unknownWellFormedKey(), 'header');
      expect(res.status).toBe(429);
    } finally {
      await stack.startService('keys');
    }
  }, 90_000);
});
