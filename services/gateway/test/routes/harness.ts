// The gateway as its routes meet it, for `app.inject` route tests: the real app (every plugin:
// auth, scopes, rate limits, error rendering) whose gRPC clients talk real gRPC to one
// in-process server implementing every generated service interface. Each method answers what
// a test sets with `answer(...)`; unset, it fails `unimplemented`, so a test states every call
// its route makes. KeysService also verifies the keys `keyWith` issues and resolves sessions,
// so the real key verifier and session path run. The e2e suites stay the proof against the
// real services; these tests prove each route's own mapping (HTTP ↔ gRPC, statuses, shapes).
import { expect, it, jest } from '@jest/globals';
import {
  bind,
  createLogger,
  generateApiKey,
  HallmarkError,
  newId,
  sha256Hex,
  startGrpcServer,
  type RunningGrpcServer,
  type ServiceBinding,
} from '@hallmark/kit';
import { BulkServiceService } from '@hallmark/proto/bulk/v1/bulk';
import { MediaServiceService } from '@hallmark/proto/certificates/v1/media';
import { AllowlistServiceService } from '@hallmark/proto/certificates/v1/allowlist';
import { CertificatesServiceService } from '@hallmark/proto/certificates/v1/certificates';
import { CredentialsServiceService } from '@hallmark/proto/certificates/v1/credentials';
import { GiftServiceService } from '@hallmark/proto/certificates/v1/gifts';
import { TagServiceService } from '@hallmark/proto/certificates/v1/tags';
import { OwnershipServiceService, ResaleServiceService } from '@hallmark/proto/certificates/v1/resale';
import { CertificateVerificationServiceService } from '@hallmark/proto/certificates/v1/verification';
import { CertificateVoucherServiceService } from '@hallmark/proto/certificates/v1/vouchers';
import { WarrantyServiceService } from '@hallmark/proto/certificates/v1/warranty';
import { ChainSettingsServiceService } from '@hallmark/proto/certificates/v1/chain_settings';
import { LostAndStolenServiceService } from '@hallmark/proto/certificates/v1/stolen';
import { CertificateSearchServiceService } from '@hallmark/proto/certificates/v1/search';
import { ServiceRecordsServiceService } from '@hallmark/proto/certificates/v1/service_records';
import { KeysServiceService, type KeyAuth } from '@hallmark/proto/keys/v1/keys';
import { TemplatesServiceService } from '@hallmark/proto/notify/v1/templates';
import { WebhooksServiceService } from '@hallmark/proto/notify/v1/webhooks';
import { PlatformServiceService } from '@hallmark/proto/platform/v1/platform';
import { VouchersServiceService } from '@hallmark/proto/vouchers/v1/vouchers';
import type { Redis } from 'ioredis';
import { SignJWT } from 'jose';
import { createRequire } from 'node:module';
import type { App } from '../../src/app.js';
import type { Clients } from '../../src/clients.js';

// Jest's module runtime cannot load the docs UI's ESM-only dependency (content-disposition via
// @fastify/static); /docs plays no part in a route test, so only it is a no-op plugin.
jest.unstable_mockModule('@fastify/swagger-ui', () => ({ default: async () => undefined }));
// `app.inject` (light-my-request) requires the ESM-only `cookie` for its `cookies` option,
// which jest's CommonJS loader cannot; no route test sends cookies, so that one function
// refuses instead of loading.
const lightMyRequest = createRequire(createRequire(import.meta.url).resolve('fastify')).resolve(
  'light-my-request',
);
jest.doMock(createRequire(lightMyRequest).resolve('cookie'), () => ({
  stringifySetCookie: () => {
    throw new Error('route tests send no cookies');
  },
}));
const { buildApp } = await import('../../src/app.js');
const { createClients } = await import('../../src/clients.js');
const { configSchema } = await import('../../src/config.js');
const { KeyVerifier } = await import('../../src/auth/key-verifier.js');
const { createSessionVerifier } = await import('../../src/auth/session.js');
const { UsageRecorder } = await import('../../src/auth/usage-recorder.js');

/** Every downstream service the gateway has a client for, by the client's name. */
const SERVICES = {
  keys: KeysServiceService,
  vouchers: VouchersServiceService,
  webhooks: WebhooksServiceService,
  templates: TemplatesServiceService,
  certificates: CertificatesServiceService,
  verification: CertificateVerificationServiceService,
  warranty: WarrantyServiceService,
  chainSettings: ChainSettingsServiceService,
  stolen: LostAndStolenServiceService,
  search: CertificateSearchServiceService,
  serviceRecords: ServiceRecordsServiceService,
  allowlist: AllowlistServiceService,
  certificateVouchers: CertificateVoucherServiceService,
  gifts: GiftServiceService,
  credentials: CredentialsServiceService,
  tags: TagServiceService,
  resale: ResaleServiceService,
  ownership: OwnershipServiceService,
  media: MediaServiceService,
  bulk: BulkServiceService,
  platform: PlatformServiceService,
} as const;
type ServiceKey = keyof typeof SERVICES;
// Methods by their client name, their definition name (server-streaming ones), and the
// webhook streams' client.
type MethodOf<S extends ServiceKey> =
  | (keyof Clients[S] & string)
  | (keyof (typeof SERVICES)[S] & string)
  | (S extends 'webhooks' ? keyof Clients['webhookStreams'] & string : never);
type Handler = (req: any, info?: any) => Promise<any>;

const SECRET = 's'.repeat(40);
export const ENT = newId('enterprise');

export interface Call {
  service: ServiceKey;
  method: string;
  req: any;
  /** The request id the call carried in its metadata. */
  requestId: string;
}

export interface Harness {
  app: App;
  /** Every gRPC call the routes made since the last `reset()`. */
  calls: Call[];
  callsTo<S extends ServiceKey>(service: S, method: MethodOf<S>): any[];
  /** What `service.method` answers (or throws) until the next `reset()`. */
  answer<S extends ServiceKey>(service: S, method: MethodOf<S>, handler: Handler): void;
  /** `Authorization` header of a fresh enterprise key (its own rate counters) holding `permissions`. */
  keyWith(permissions: string[], over?: Partial<KeyAuth>): Record<string, string>;
  /** `Authorization` header of an owner session of ENT. */
  session: Record<string, string>;
  reset(): void;
  close(): Promise<void>;
}

const keyAuths = new Map<string, KeyAuth>();

const KEYS_AUTH: Record<string, Handler> = {
  verifyKey: async (req: { secret_hash: string }) => {
    const key = keyAuths.get(req.secret_hash);
    if (!key) throw new HallmarkError('invalid_api_key');
    return { key };
  },
  resolveSession: async (req: { enterprise_id: string; role: string }) => ({
    user_id: 'user_1',
    enterprise_id: req.enterprise_id,
    role: req.role || 'owner',
  }),
  recordUsage: async () => ({}),
};

/**
 * `env`: gateway settings over the defaults (e.g. a low limit to reach); `redis`: the rate
 * limiter's Redis store instead of the in-memory one.
 */
export async function startHarness(
  env: Record<string, string> = {},
  opts: { redis?: Redis } = {},
): Promise<Harness> {
  const log = createLogger('gateway-route-test', 'silent');
  const calls: Call[] = [];
  let answers = new Map<string, Handler>();
  const bindings: ServiceBinding[] = Object.entries(SERVICES).map(([service, definition]) => {
    const handlers: Record<string, Handler> = {};
    for (const method of Object.keys(definition)) {
      // A server-streaming method answers a list of messages, written in order, then ends.
      if ((definition as Record<string, { responseStream?: boolean }>)[method]!.responseStream) {
        handlers[method] = async (req, call?: { requestId: string; write(m: unknown): Promise<void> }) => {
          calls.push({ service: service as ServiceKey, method, req, requestId: call!.requestId });
          const own = answers.get(`${service}.${method}`);
          if (!own) throw new HallmarkError('internal_error', { message: `${service}.${method} not set` });
          // The messages the test gives: an array, or one message.
          const out = await own(req);
          for (const m of Array.isArray(out) ? out : [out]) await call!.write(m);
        };
        continue;
      }
      handlers[method] = async (req, info) => {
        const own = answers.get(`${service}.${method}`);
        if (service === 'keys' && !own && KEYS_AUTH[method]) return KEYS_AUTH[method]!(req);
        calls.push({ service: service as ServiceKey, method, req, requestId: info!.requestId });
        if (!own) throw new HallmarkError('internal_error', { message: `${service}.${method} not set` });
        // Unset top-level fields take their proto defaults (a test states what it asserts);
        // nested messages are given whole.
        const empty = (definition as Record<string, { responseDeserialize(b: Buffer): object }>)[method]!;
        return { ...empty.responseDeserialize(Buffer.alloc(0)), ...(await own(req)) };
      };
    }
    return bind(definition as never, handlers as never);
  });
  const server: RunningGrpcServer = await startGrpcServer({
    name: 'fake-downstream',
    address: '127.0.0.1:0',
    services: bindings,
    log,
  });
  const addr = `127.0.0.1:${server.port}`;
  const config = configSchema.parse({
    HALLMARK_KEYS_ADDR: addr,
    HALLMARK_VOUCHERS_ADDR: addr,
    HALLMARK_NOTIFY_ADDR: addr,
    HALLMARK_CERTIFICATES_ADDR: addr,
    HALLMARK_BULK_ADDR: addr,
    HALLMARK_PLATFORM_ADDR: addr,
    HALLMARK_JWT_SECRET: SECRET,
    HALLMARK_PUBLIC_URL: 'https://hallmark.test',
    LOG_LEVEL: 'silent',
    ...env,
  });
  const clients = createClients(config);
  const app = await buildApp({
    config,
    clients,
    verifier: new KeyVerifier(clients.keys, 5000),
    verifySession: createSessionVerifier({ secret: SECRET }),
    usage: new UsageRecorder(clients.keys, log),
    logLevel: process.env.ROUTE_TEST_LOG ?? 'silent',
    redis: opts.redis,
  });
  await app.ready();
  const jwt = await new SignJWT({ ent: ENT, role: 'owner', email: 'alice@example.com' })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject('alice')
    .setIssuedAt()
    .setExpirationTime('10m')
    .sign(new TextEncoder().encode(SECRET));
  return {
    app,
    calls,
    callsTo: (service, method) =>
      calls.filter((c) => c.service === service && c.method === method).map((c) => c.req),
    answer: (service, method, handler) => void answers.set(`${service}.${method}`, handler),
    keyWith(permissions, over = {}) {
      const secret = generateApiKey('enterprise');
      keyAuths.set(sha256Hex(secret), {
        key_id: newId('apiKey'),
        enterprise_id: ENT,
        type: 'enterprise',
        livemode: true,
        permissions,
        rate_limit_per_minute: 1000,
        rate_limit_per_hour: 1000,
        burst_limit: 100,
        allowed_ips: [],
        expires_at: '',
        grace_until: '',
        created_by: 'user_x',
        ...over,
      });
      return { authorization: `Bearer ${secret}` };
    },
    session: { authorization: `Bearer ${jwt}` },
    reset() {
      calls.length = 0;
      answers = new Map();
      app.publicCache.clear();
    },
    async close() {
      await app.close();
      clients.close();
      await server.shutdown(1000);
    },
  };
}

/** The surface's error body of a reply, whichever envelope its route uses. */
export function errorCode(body: any): string | undefined {
  return body?.error?.code ?? body?.code;
}

type InjectOpts = { method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'; url: string; payload?: unknown };

/**
 * Authorization fails closed before any downstream call: no credential is 401; with
 * `wrongScope` (a credential lacking the route's scope) 403 `insufficient_permissions`.
 */
export async function expectRefusals(h: Harness, req: InjectOpts, wrongScope?: Record<string, string>) {
  const anon = await h.app.inject({ ...req, payload: req.payload as never });
  expect(anon.statusCode).toBe(401);
  if (wrongScope) {
    const wrong = await h.app.inject({ ...req, payload: req.payload as never, headers: wrongScope });
    expect(wrong.statusCode).toBe(403);
    expect(errorCode(wrong.json())).toBe('insufficient_permissions');
  }
  expect(h.calls).toEqual([]);
}

/** The service's error `code` thrown from `service.method`, as the route's surface shows it. */
export async function expectMapped(
  h: Harness,
  call: [ServiceKey, string],
  error: HallmarkError,
  req: InjectOpts & { headers: Record<string, string> },
) {
  h.answer(call[0], call[1] as never, async () => {
    throw error;
  });
  const res = await h.app.inject({ ...req, payload: req.payload as never });
  expect(res.statusCode).toBe(error.httpStatus);
  expect(errorCode(res.json())).toBe(error.code);
  // `/api/…` outside `/api/v1` answers `success:false`; every other path the error envelope.
  if (req.url.startsWith('/api/') && !req.url.startsWith('/api/v1/'))
    expect(res.json()).toMatchObject({ success: false, code: error.code });
  else expect(res.json().error).toMatchObject({ code: error.code });
  return res;
}

/** A session-only route: no credential is 401, an API key is 401 `invalid_token`; no call made. */
export async function expectSessionOnly(h: Harness, req: InjectOpts) {
  const anon = await h.app.inject({ ...req, payload: req.payload as never });
  expect(anon.statusCode).toBe(401);
  const key = await h.app.inject({ ...req, payload: req.payload as never, headers: h.keyWith(['admin.*']) });
  expect(key.statusCode).toBe(401);
  expect(errorCode(key.json())).toBe('invalid_token');
  expect(h.calls).toEqual([]);
}

/** One route's cases, for `routeCase`. */
export interface RouteCase {
  req: InjectOpts & { payload?: object };
  scope: string;
  wrongScope: string;
  call: string;
  answer: (req: any) => object;
  status: number;
  shape: object;
  sent: object;
  bad?: { url?: string; payload?: object; param: string };
  error: HallmarkError;
  /** Other calls the route makes on its way, answered as given. */
  also?: [ServiceKey, string, Handler][];
}

/**
 * The guarantees every authenticated route gives: its success status and shape with the
 * request passed on; bad input refused with 400 naming the field before any call; 401 without
 * a credential and 403 without its scope; the service's error in the route's envelope.
 * `harness` is read when the tests run (the harness starts in `beforeAll`).
 */
export function routeCase(harness: () => Harness, service: ServiceKey, c: RouteCase) {
  it(`answers ${c.status} with its shape and passes the request on`, async () => {
    const h = harness();
    h.answer(service, c.call as never, async (r) => c.answer(r));
    for (const [svc, method, handler] of c.also ?? []) h.answer(svc, method as never, handler);
    const res = await h.app.inject({ ...c.req, headers: h.keyWith([c.scope]) });
    expect(res.statusCode).toBe(c.status);
    expect(res.json()).toMatchObject(c.shape);
    expect(h.callsTo(service, c.call as never)[0]).toMatchObject(c.sent);
  });
  if (c.bad) {
    const bad = c.bad;
    it(`refuses bad input with 400 naming ${bad.param}, before any call`, async () => {
      const h = harness();
      const res = await h.app.inject({
        ...c.req,
        url: bad.url ?? c.req.url,
        payload: bad.payload ?? c.req.payload,
        headers: h.keyWith([c.scope]),
      });
      expect(res.statusCode).toBe(400);
      expect(res.json().error?.param ?? res.json().param).toBe(bad.param);
      expect(h.calls).toEqual([]);
    });
  }
  it(`is 401 without a credential, 403 with ${c.wrongScope} only`, async () => {
    const h = harness();
    await expectRefusals(h, c.req, h.keyWith([c.wrongScope]));
  });
  it(`maps the service's ${c.error.code} to ${c.error.httpStatus} in the route's envelope`, async () => {
    const h = harness();
    for (const [svc, method, handler] of c.also ?? []) h.answer(svc, method as never, handler);
    await expectMapped(h, [service, c.call], c.error, { ...c.req, headers: h.session });
  });
}
