// One owner of stream configuration (Operations II). Services only create a stream that does
// not exist (a fresh dev stack); the release's migration step (configureStreams) alone brings
// them to the configured values, so processes with other values (two releases during an
// upgrade, an operator's `dlq` command) never change them back. Against a NATS server of the
// test's own: the streams are shared by everything on a server.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ensureNats, freePort, type NatsHandle } from '@hallmark/devstack';
import { busSettings, configureStreams, connectBus, STREAM_NAME, DLQ_STREAM } from '@hallmark/kit';
import { jetstreamManager } from '@nats-io/jetstream';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const dataDir = mkdtempSync(path.join(tmpdir(), 'hallmark-streams-'));
let nats: NatsHandle;

beforeAll(async () => {
  nats = await ensureNats({ dataDir, forceSpawn: true, port: await freePort() });
}, 60_000);

afterAll(async () => {
  await nats?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

const HOUR_NS = 3600 * 1e9;

async function streamConfig(name: string) {
  const bus = await connectBus(nats.url, 'inspect', { streams: 'none' });
  try {
    return (await (await jetstreamManager(bus.nc)).streams.info(name).catch(() => null))?.config;
  } finally {
    await bus.close();
  }
}

describe('stream configuration', () => {
  it('the dlq command (streams: none) creates nothing on a fresh server', async () => {
    const bus = await connectBus(nats.url, 'hallmark-dlq', { streams: 'none' });
    await bus.close();
    expect(await streamConfig(STREAM_NAME)).toBeUndefined();
    expect(await streamConfig(DLQ_STREAM)).toBeUndefined();
  });

  it('a service creates missing streams with a size bound; a full event stream refuses new events', async () => {
    const bus = await connectBus(nats.url, 'keys');
    await bus.close();
    const events = await streamConfig(STREAM_NAME);
    expect(events).toMatchObject({ max_bytes: 8 * 1024 ** 3, discard: 'new', max_age: 168 * HOUR_NS });
    expect(await streamConfig(DLQ_STREAM)).toMatchObject({ max_bytes: 1024 ** 3, discard: 'old' });
  });

  it('the migration step applies new values; a service started with other values leaves them as they are', async () => {
    const release = busSettings({
      HALLMARK_NATS_STREAM_MAX_AGE_HOURS: '24',
      HALLMARK_NATS_STREAM_MAX_BYTES: String(2 * 1024 ** 3),
    });
    const bus = await connectBus(nats.url, 'hallmark-migrate', { streams: 'none' });
    expect(await configureStreams(bus.nc, release)).toEqual([`${STREAM_NAME} updated`]);
    expect(await configureStreams(bus.nc, release)).toEqual([]); // applied once, then nothing to do
    await bus.close();
    // A process of the previous release (default values: 168 h, 8 GiB) starts: nothing flips.
    const old = await connectBus(nats.url, 'vouchers');
    await old.close();
    expect(await streamConfig(STREAM_NAME)).toMatchObject({
      max_age: 24 * HOUR_NS,
      max_bytes: 2 * 1024 ** 3,
    });
  });
});
