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
          verifyKey: async (req: { secret_hash: string }) => {
            calls++;
            seenRequestId = currentRequestId();
            if (req.secret_hash === 'slow') await new Promise((r) => setTimeout(r, 400));
            if (req.secret_hash === 'denied') throw new HallmarkError('invalid_api_key');
            if (req.secret_hash === 'bug') throw new Error('SELECT secret FROM api_keys failed');
            return { key: { ...KeyAuth.decode(new Uint8Array()), key_id: 'apikey_x' } };
          },
        },
      },
    ],
  });
  address = `127.0.0.1:${server.port}`;
});

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
