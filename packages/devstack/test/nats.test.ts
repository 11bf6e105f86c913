import { afterAll, describe, expect, it } from '@jest/globals';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ensureNats, natsInfo, type NatsHandle } from '../src/index.js';
import { tempDataDir } from './helpers.js';

const tmp = tempDataDir('nats');
const handles: NatsHandle[] = [];
afterAll(async () => {
  await Promise.all(handles.map((h) => h.stop()));
  tmp.cleanup();
});

describe('ensureNats', () => {
  it('spawns nats-server with JetStream on a free port when forced, and stop() takes it down', async () => {
    const h = await ensureNats({ dataDir: tmp.dir, forceSpawn: true, logFile: tmp.log('nats') });
    handles.push(h);
    expect(h.spawned).toBe(true);
    expect(h.url).toMatch(/^nats:\/\/127\.0\.0\.1:\d+$/);
    expect(h.url).not.toBe('nats://127.0.0.1:4222');
    const info = await natsInfo(h.url);
    expect(info.jetstream).toBe(true);
    expect(existsSync(join(tmp.dir, 'nats'))).toBe(true);
    await h.stop();
    await expect(natsInfo(h.url, 500)).rejects.toThrow();
  });

  it('uses an explicit NATS_URL as is', async () => {
    const spawned = await ensureNats({ dataDir: tmp.dir, forceSpawn: true, logFile: tmp.log('nats') });
    handles.push(spawned);
    const reused = await ensureNats({ dataDir: tmp.dir, url: spawned.url });
    expect(reused).toMatchObject({ url: spawned.url, spawned: false });
    await reused.stop(); // no-op: it is not ours
    expect((await natsInfo(spawned.url)).jetstream).toBe(true);
  });
});
