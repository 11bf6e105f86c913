// Load spreads over replicas (Operations II): a client given a name that resolves to every
// replica sends its calls round robin, and a server closes aged connections so that a client
// of one address (a ClusterIP Service) reconnects, finding replicas added since.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { KeyAuth, KeysServiceClient, KeysServiceService } from '@hallmark/proto/keys/v1/keys';
import { createGrpcClient, createLogger, startGrpcServer, type RunningGrpcServer } from '../src/index.js';

const log = createLogger('grpc-spread-test', 'silent');

/** A keys server that counts the calls it answers. */
async function replica(opts: { maxConnectionAgeMs?: number } = {}) {
  const counter = { calls: 0 };
  const server = await startGrpcServer({
    name: 'spread-test',
    address: '127.0.0.1:0',
    log,
    ...opts,
    services: [
      {
        definition: KeysServiceService,
        handlers: {
          verifyKey: async () => {
            counter.calls++;
            return { key: { ...KeyAuth.decode(new Uint8Array()), key_id: 'apikey_x' } };
          },
        },
      },
    ],
  });
  return { server, counter };
}

const servers: RunningGrpcServer[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.shutdown(500)));
});

describe('gRPC load spreading', () => {
  let a: Awaited<ReturnType<typeof replica>>;
  let b: Awaited<ReturnType<typeof replica>>;

  beforeAll(async () => {
    a = await replica();
    b = await replica();
    servers.push(a.server, b.server);
  });

  it('a client of two replicas (ipv4: list, as a headless Service resolves) sends calls to both, evenly', async () => {
    const client = createGrpcClient(
      KeysServiceClient,
      `ipv4:127.0.0.1:${a.server.port},127.0.0.1:${b.server.port}`,
    );
    const before = [a.counter.calls, b.counter.calls];
    for (let i = 0; i < 40; i++) await client.api.verifyKey({ secret_hash: 'x', ip_address: '' });
    const took = [a.counter.calls - before[0]!, b.counter.calls - before[1]!];
    expect(took[0]! + took[1]!).toBe(40);
    // Round robin once both connections are up: neither replica is left idle.
    expect(Math.min(...took)).toBeGreaterThanOrEqual(10);
    client.close();
  });

  it('a server closes a connection past its max age; the client reconnects and its calls go on', async () => {
    const aged = await replica({ maxConnectionAgeMs: 1000 });
    servers.push(aged.server);
    const client = createGrpcClient(KeysServiceClient, `127.0.0.1:${aged.server.port}`);
    const channel = client.channel;
    await client.api.verifyKey({ secret_hash: 'x', ip_address: '' });
    // Past the age the server sends GOAWAY: the channel leaves READY (every change is recorded).
    const states: number[] = [];
    let watching = true;
    const watch = (last: number) => {
      if (!watching) return;
      channel.watchConnectivityState(last, Date.now() + 5000, () => {
        const now = channel.getConnectivityState(false);
        states.push(now);
        watch(now);
      });
    };
    watch(channel.getConnectivityState(false));
    await new Promise((r) => setTimeout(r, 2500));
    watching = false;
    expect(states.some((s) => s !== 2 /* READY */)).toBe(true);
    await client.api.verifyKey({ secret_hash: 'x', ip_address: '' });
    expect(aged.counter.calls).toBe(2);
    client.close();
  }, 10_000);
});
