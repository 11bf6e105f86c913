// freePort: the ports of stacks starting side by side never collide before they are bound.
import { describe, expect, it } from '@jest/globals';
import { freePort } from '../src/index.js';
import { portShare } from '../src/wait.js';

describe('freePort', () => {
  it('never hands out the same port twice in a process, though none of them is bound yet', async () => {
    const ports = await Promise.all(Array.from({ length: 1000 }, () => freePort()));
    expect(new Set(ports).size).toBe(ports.length);
  });

  it('gives each jest worker its own share of the ports, below the kernel’s ephemeral range', () => {
    const shares = ['1', '2', '3', '4'].map((id) => portShare(id));
    for (const [i, a] of shares.entries()) {
      expect(a.from + a.count).toBeLessThanOrEqual(32_768);
      for (const b of shares.slice(i + 1))
        expect(a.from + a.count <= b.from || b.from + b.count <= a.from).toBe(true);
    }
    expect(portShare('')).toEqual({ from: 10_000, count: 22_000 });
    const port = portShare(process.env.JEST_WORKER_ID);
    return freePort().then((p) => expect(p >= port.from && p < port.from + port.count).toBe(true));
  });
});
