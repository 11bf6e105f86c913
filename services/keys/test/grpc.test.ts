// The keys service over a real gRPC server/client pair: answers and typed errors
// arrive intact, exactly as the gateway will see them.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  createGrpcClient,
  createLogger,
  HallmarkError,
  startGrpcServer,
  type GrpcClient,
  type RunningGrpcServer,
} from '@hallmark/kit';
import { KeysServiceClient } from '@hallmark/proto/keys/v1/keys';
import { hashSecret, parseSecret } from '../src/domain/secret.js';
import { keysServiceBinding } from '../src/rpc.js';
import { newEnterprise, openHarness, type Harness } from './harness.js';

let h: Harness;
let server: RunningGrpcServer;
let client: GrpcClient<KeysServiceClient>;

beforeAll(async () => {
  h = await openHarness('keys_grpc');
  server = await startGrpcServer({
    name: 'keys-test',
    address: '127.0.0.1:0',
    services: [keysServiceBinding(h.store, h.profiles)],
    log: createLogger('keys-test', 'silent'),
  });
  client = createGrpcClient(KeysServiceClient, `127.0.0.1:${server.port}`);
});
afterAll(async () => {
  client.close();
  await server.shutdown(1000);
  await h.close();
});

describe('KeysService over gRPC', () => {
  it('a session creates a key that then verifies; refusals arrive as the same typed errors', async () => {
    const keys = client.api;
    const session = await keys.resolveSession({
      subject: 'grpc-user',
      enterprise_id: newEnterprise(),
      email: 'g@example.test',
      role: 'owner',
    });
    const principal = {
      enterprise_id: session.enterprise_id,
      livemode: true,
      actor_id: session.user_id,
      actor_type: 'user',
      scopes: ['admin.*'],
    };
    const created = await keys.createKey({
      principal,
      name: 'over the wire',
      ip_address: '192.0.2.1',
      type: 'restricted',
      permissions: ['reports.read'],
      rate_limit: 120,
      expires_at: new Date(Date.now() + 86_400_000).toISOString(),
      allowed_ips: ['192.0.2.0/24'],
      requests_per_hour: 0,
      burst_limit: 0,
    });
    expect(parseSecret(created.secret)).toMatchObject({ ok: true, prefix: 'pk_restricted_' });
    const verified = await keys.verifyKey({
      secret_hash: hashSecret(created.secret),
      ip_address: '192.0.2.9',
    });
    expect(verified.key).toMatchObject({
      key_id: created.key!.id,
      type: 'restricted',
      permissions: ['reports.read'],
      allowed_ips: ['192.0.2.0/24'],
    });

    const invalid = await keys
      .verifyKey({ secret_hash: hashSecret('pk_live_nope'), ip_address: '' })
      .catch((e: unknown) => e);
    expect(invalid).toBeInstanceOf(HallmarkError);
    expect((invalid as HallmarkError).code).toBe('invalid_api_key');

    const bad = await keys
      .createKey({
        principal,
        name: 'x',
        type: 'production',
        permissions: ['root'],
        rate_limit: 0,
        expires_at: '',
        allowed_ips: [],
        requests_per_hour: 0,
        burst_limit: 0,
        ip_address: '',
      })
      .catch((e: unknown) => e);
    expect(bad).toMatchObject({ code: 'parameter_invalid', param: 'permissions' });

    const other = { ...principal, enterprise_id: newEnterprise() };
    const hidden = await keys.getKey({ principal: other, key_id: created.key!.id }).catch((e: unknown) => e);
    expect(hidden).toMatchObject({ code: 'insufficient_permissions' });
    const stranger = await keys.resolveSession({
      subject: 'stranger',
      enterprise_id: other.enterprise_id,
      email: '',
      role: 'owner',
    });
    const notFound = await keys
      .getKey({ principal: { ...other, actor_id: stranger.user_id }, key_id: created.key!.id })
      .catch((e: unknown) => e);
    expect(notFound).toMatchObject({
      code: 'resource_not_found',
      extras: { resource: 'api_key', resource_id: created.key!.id },
    });
  });
});
