import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { credentials, loadPackageDefinition } from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { KeyAuth, KeysServiceClient, KeysServiceService } from '@hallmark/proto/keys/v1/keys';
import { createRequire } from 'node:module';
import path from 'node:path';
import {
  createGrpcClient,
  createHealthProbe,
  createLogger,
  HallmarkError,
  registry,
  startGrpcServer,
  type RunningGrpcServer,
} from '../src/index.js';
import { currentRequestId, runWithContext } from '../src/context.js';

const log = createLogger('grpc-test', 'silent');
let server: RunningGrpcServer;
let address: string;
let calls = 0;
let seenRequestId: string | undefined;

beforeAll(async () => {
  server = await startGrpcServer({
    name: 'grpc-test',
    address: '127.0.0.1:0',
    log,
    protoFiles: ['hallmark/keys/v1/keys.proto'],
    services: [
      {
        definition: KeysServiceService,
        handlers: {
          // The secret hash chooses the behaviour, so one RPC can exercise every path.
          verifyKey: (req: { secret_hash: string }) => {
            // A handler that throws before it returns a promise (no async wrapper).
            if (req.secret_hash === 'sync-bug') throw new Error('thrown synchronously');
            return verifyKey(req);
          },
        },
      },
    ],
  });
  address = `127.0.0.1:${server.port}`;
});

/**
 * Field names a client's JSON keys can make (by name: a lone surrogate cannot travel in the
 * request, whose strings protobuf writes as UTF-8).
 */
const ODD_FIELDS: Record<string, string> = {
  'non-ascii': 'variables.é',
  'lone-surrogate': 'variables.\ud800',
  'emoji-newline': 'metadata[0].名前\n🙂',
};

/** The test RPC's behaviours, chosen by the secret hash. */
async function verifyKey(req: { secret_hash: string }) {
  calls++;
  seenRequestId = currentRequestId();
  // A domain error naming a client's field: any text, as a client's JSON key may be.
  const field = ODD_FIELDS[req.secret_hash];
  if (field !== undefined) {
    throw new HallmarkError('parameter_invalid', {
      param: field,
      message: `${field} is not allowed — ✓`,
      extras: { errors: [{ field, message: `${field} ✗` }] },
    });
  }
  if (req.secret_hash === 'slow') await new Promise((r) => setTimeout(r, 400));
  if (req.secret_hash === 'denied') throw new HallmarkError('invalid_api_key');
  if (req.secret_hash === 'bug') throw new Error('SELECT secret FROM api_keys failed');
  return { key: { ...KeyAuth.decode(new Uint8Array()), key_id: 'apikey_x' } };
}

afterAll(async () => {
  await server.shutdown(1000);
});

describe('gRPC helpers', () => {
  const client = () => createGrpcClient(KeysServiceClient, address, { deadlineMs: 2000 });

  it('carry the request id into the handler through metadata', async () => {
    const c = client();
    await runWithContext({ requestId: 'req_ABCDEFGHIJKLMNOPQRSTUVWX' }, () =>
      c.api.verifyKey({ secret_hash: 'ok', ip_address: '' }),
    );
    expect(seenRequestId).toBe('req_ABCDEFGHIJKLMNOPQRSTUVWX');
    c.close();
  });

  it('deliver domain errors as the same typed error, and hide internal ones', async () => {
    const c = client();
    await expect(c.api.verifyKey({ secret_hash: 'denied', ip_address: '' })).rejects.toMatchObject({
      code: 'invalid_api_key',
    });
    const err = await c.api.verifyKey({ secret_hash: 'bug', ip_address: '' }).catch((e: HallmarkError) => e);
    expect(err).toBeInstanceOf(HallmarkError);
    expect((err as HallmarkError).code).toBe('internal_error');
    expect((err as HallmarkError).message).not.toMatch(/SELECT/);
    c.close();
  });

  it.each([
    ['a non-ASCII field name', 'non-ascii'],
    ['a lone surrogate', 'lone-surrogate'],
    ['an emoji and a newline', 'emoji-newline'],
  ])('carry an error whose param is %s intact, answered within its request', async (_what, name) => {
    const c = client();
    const field = ODD_FIELDS[name]!;
    const err = await c.api.verifyKey({ secret_hash: name, ip_address: '' }).catch((e: HallmarkError) => e);
    expect(err).toBeInstanceOf(HallmarkError);
    expect(err).toMatchObject({ code: 'parameter_invalid', param: field });
    expect((err as HallmarkError).message).toBe(`${field} is not allowed — ✓`);
    expect((err as HallmarkError).extras).toEqual({ errors: [{ field, message: `${field} ✗` }] });
    // The server still answers the next call.
    await expect(c.api.verifyKey({ secret_hash: 'ok', ip_address: '' })).resolves.toBeDefined();
    c.close();
  });

  it('answer and count a handler that throws synchronously as any failed call', async () => {
    const c = client();
    const failed = async () =>
      (await registry.getSingleMetricAsString('hallmark_grpc_server_handling_seconds'))
        .split('\n')
        .find((l) => l.startsWith('hallmark_grpc_server_handling_seconds_count') && l.includes('INTERNAL'))
        ?.split(' ')[1] ?? '0';
    const before = Number(await failed());
    await expect(c.api.verifyKey({ secret_hash: 'sync-bug', ip_address: '' })).rejects.toMatchObject({
      code: 'internal_error',
    });
    expect(Number(await failed())).toBe(before + 1);
    await expect(c.api.verifyKey({ secret_hash: 'ok', ip_address: '' })).resolves.toBeDefined();
    c.close();
  });

  it('enforce a deadline on every call', async () => {
    const c = client();
    await expect(
      c.api.verifyKey({ secret_hash: 'slow', ip_address: '' }, { deadlineMs: 100 }),
    ).rejects.toMatchObject({
      code: 'upstream_timeout',
    });
    c.close();
  });

  it('retry transport failures only for calls marked idempotent', async () => {
    const dead = createGrpcClient(KeysServiceClient, '127.0.0.1:1', { deadlineMs: 300, retries: 2 });
    const before = Date.now();
    await expect(dead.api.verifyKey({ secret_hash: 'ok', ip_address: '' })).rejects.toMatchObject({
      code: 'service_unavailable',
    });
    const once = Date.now() - before;
    const t = Date.now();
    await expect(
      dead.api.verifyKey({ secret_hash: 'ok', ip_address: '' }, { idempotent: true }),
    ).rejects.toBeInstanceOf(HallmarkError);
    // Three attempts with back-off take measurably longer than one.
    expect(Date.now() - t).toBeGreaterThan(once + 100);
    dead.close();
    // A domain refusal is never retried, even when idempotent.
    const c = client();
    const n = calls;
    await expect(
      c.api.verifyKey({ secret_hash: 'denied', ip_address: '' }, { idempotent: true }),
    ).rejects.toBeInstanceOf(HallmarkError);
    expect(calls - n).toBe(1);
    c.close();
  });

  it('serve the standard health protocol', async () => {
    const probe = createHealthProbe(address);
    expect(await probe.check()).toBe('SERVING');
    probe.close();
  });

  it('serve reflection listing the service', async () => {
    const require = createRequire(import.meta.url);
    const reflectionProto = path.join(
      path.dirname(require.resolve('@grpc/reflection/package.json')),
      'build/proto/grpc/reflection/v1/reflection.proto',
    );
    const pkg = loadPackageDefinition(protoLoader.loadSync(reflectionProto, { keepCase: true })) as any;
    const client = new pkg.grpc.reflection.v1.ServerReflection(address, credentials.createInsecure());
    const services = await new Promise<string[]>((resolve, reject) => {
      const call = client.ServerReflectionInfo();
      call.on('data', (res: any) => {
        resolve(res.list_services_response.service.map((s: { name: string }) => s.name));
        call.end();
      });
      call.on('error', reject);
      call.write({ list_services: '' });
    });
    expect(services).toContain('hallmark.keys.v1.KeysService');
    client.close();
  });

  it('finish in-flight calls on graceful shutdown and refuse new ones after', async () => {
    const own = await startGrpcServer({
      name: 'grpc-drain',
      address: '127.0.0.1:0',
      log,
      services: [
        {
          definition: KeysServiceService,
          handlers: {
            verifyKey: async () => {
              await new Promise((r) => setTimeout(r, 300));
              return { key: { ...KeyAuth.decode(new Uint8Array()), key_id: 'apikey_done' } };
            },
          },
        },
      ],
    });
    const c = createGrpcClient(KeysServiceClient, `127.0.0.1:${own.port}`, { deadlineMs: 2000 });
    const inflight = c.api.verifyKey({ secret_hash: 'x', ip_address: '' });
    await new Promise((r) => setTimeout(r, 50));
    const stopping = own.shutdown(5000);
    await expect(inflight).resolves.toMatchObject({ key: { key_id: 'apikey_done' } });
    await stopping;
    await expect(
      c.api.verifyKey({ secret_hash: 'x', ip_address: '' }, { deadlineMs: 300 }),
    ).rejects.toBeInstanceOf(HallmarkError);
    c.close();
  });
});
