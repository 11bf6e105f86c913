import { afterAll, describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { spawnProcess, stopAll, waitFor } from '../src/index.js';
import { tempDataDir } from './helpers.js';

const tmp = tempDataDir('proc');
afterAll(async () => {
  await stopAll();
  tmp.cleanup();
});

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('spawnProcess', () => {
  it('waits for readiness, writes output to the log file, and stop() also ends the child’s own children', async () => {
    const log = tmp.log('sleeper');
    // The shell starts a grandchild; a stop must reach it through the process group.
    const h = await spawnProcess({
      name: 'sleeper',
      cmd: '/bin/sh',
      args: ['-c', 'echo started; sleep 300 & echo "grandchild $!"; wait'],
      logFile: log,
      readyCheck: async () => /grandchild (\d+)/.exec(readFileSync(log, 'utf8')),
    });
    const grandchild = Number(/grandchild (\d+)/.exec(readFileSync(log, 'utf8'))?.[1]);
    expect(alive(grandchild)).toBe(true);
    await h.stop();
    await waitFor(() => !alive(grandchild), { what: 'the grandchild to exit', timeoutMs: 2000 });
  });

  it('fails fast with the last output when the child exits before it is ready', async () => {
    const t0 = Date.now();
    await expect(
      spawnProcess({
        name: 'crasher',
        cmd: '/bin/sh',
        args: ['-c', 'echo boom >&2; exit 3'],
        readyCheck: async () => false,
      }),
    ).rejects.toThrow(/crasher exited \(code 3[^]*boom/);
    expect(Date.now() - t0).toBeLessThan(5000);
  });

  it('reports a binary that cannot be started', async () => {
    await expect(
      spawnProcess({ name: 'ghost', cmd: '/nonexistent/ghost-server', readyCheck: async () => true }),
    ).rejects.toThrow(/ghost: could not start \/nonexistent\/ghost-server: .*ENOENT/);
  });

  it('gives up on a readiness check that hangs, at the deadline', async () => {
    await expect(
      spawnProcess({
        name: 'mute',
        cmd: 'sleep',
        args: ['300'],
        readyTimeoutMs: 300,
        readyCheck: () => new Promise(() => undefined),
      }),
    ).rejects.toThrow(/Timed out after 300 ms waiting for mute/);
  });

  it('times out a child that never becomes ready and leaves nothing running', async () => {
    let pid = 0;
    await expect(
      spawnProcess({
        name: 'hanger',
        cmd: '/bin/sh',
        args: ['-c', 'exec sleep 300'],
        readyTimeoutMs: 300,
        readyCheck: async () => {
          return false;
        },
      }).catch((err: Error) => {
        pid = Number(/pid (\d+)/.exec(err.message)?.[1] ?? 0);
        throw err;
      }),
    ).rejects.toThrow(/Timed out after 300 ms waiting for hanger \(pid \d+\) to become ready/);
    expect(pid).toBeGreaterThan(0);
    expect(alive(pid)).toBe(false);
  });

  it('stopAll() stops every child this process started', async () => {
    const a = await spawnProcess({
      name: 'a',
      cmd: 'sleep',
      args: ['300'],
      logFile: tmp.log('a'),
      readyCheck: async () => true,
    });
    const b = await spawnProcess({
      name: 'b',
      cmd: 'sleep',
      args: ['300'],
      logFile: tmp.log('b'),
      readyCheck: async () => true,
    });
    await stopAll();
    expect(alive(a.pid)).toBe(false);
    expect(alive(b.pid)).toBe(false);
  });

  it('stops a leftover child recorded in its pid file before starting a new one', async () => {
    const pidFile = `${tmp.dir}/sleeper.pid`;
    const orphan = await spawnProcess({
      name: 'old',
      cmd: 'sleep',
      args: ['301'],
      pidFile,
      logFile: tmp.log('old'),
      readyCheck: async () => true,
    });
    // Simulate a crash of the parent: the handle is lost, the child and its pid file remain.
    const fresh = await spawnProcess({
      name: 'new',
      cmd: 'sleep',
      args: ['302'],
      pidFile,
      logFile: tmp.log('new'),
      readyCheck: async () => true,
    });
    expect(alive(orphan.pid)).toBe(false);
    expect(readFileSync(pidFile, 'utf8').trim()).toBe(String(fresh.pid));
    await fresh.stop();
  });
});
