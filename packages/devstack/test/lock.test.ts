import { afterAll, describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { acquireStackLock } from '../src/index.js';
import { tempDataDir } from './helpers.js';

const tmp = tempDataDir('lock');
afterAll(() => tmp.cleanup());

describe('acquireStackLock', () => {
  it('refuses a second holder while the first is alive, and frees the data dir on release', async () => {
    const release = await acquireStackLock(tmp.dir);
    const started = (JSON.parse(readFileSync(join(tmp.dir, 'stack.pid'), 'utf8')) as { startedAt: string })
      .startedAt;
    await expect(acquireStackLock(tmp.dir)).rejects.toThrow(
      `Hallmark is already running (pid ${process.pid}, started ${started}). Stop it first or set HALLMARK_DATA_DIR to another directory.`,
    );
    release();
    expect(existsSync(join(tmp.dir, 'stack.pid'))).toBe(false);
    const again = await acquireStackLock(tmp.dir);
    again();
  });

  it('takes over a pid file left by a process that is gone', async () => {
    const dead = spawnSync(process.execPath, ['-e', '0']).pid; // exited by the time spawnSync returns
    writeFileSync(
      join(tmp.dir, 'stack.pid'),
      JSON.stringify({ pid: dead, startedAt: '2020-01-01T00:00:00.000Z' }),
    );
    const release = await acquireStackLock(tmp.dir);
    expect(JSON.parse(readFileSync(join(tmp.dir, 'stack.pid'), 'utf8'))).toMatchObject({ pid: process.pid });
    release();
  });

  it('takes over a pid file whose pid now belongs to an unrelated process', async () => {
    // Same pid, different kernel start time: the holder died and the pid was reused.
    writeFileSync(
      join(tmp.dir, 'stack.pid'),
      JSON.stringify({ pid: 1, startedAt: '2020-01-01T00:00:00.000Z', procStart: '-1' }),
    );
    const release = await acquireStackLock(tmp.dir);
    release();
  });
});
