// The Restate endpoint as a worker: a stop ends the HTTP/2 connections Restate keeps open.
import { describe, expect, it } from '@jest/globals';
import http2 from 'node:http2';
import { restateEndpoint } from '../src/restate/endpoint.js';
import { createLogger } from '../src/log.js';

describe('restateEndpoint', () => {
  it('stops while a client holds its HTTP/2 connection open (the process no longer waits for a SIGKILL)', async () => {
    const endpoint = restateEndpoint([], {
      host: '127.0.0.1',
      port: 0,
      release: 'r1',
      adminUrl: null,
      log: createLogger('test', 'silent'),
    });
    await endpoint.start();
    // As Restate does: one session, kept open after its request is answered.
    const client = http2.connect(new URL(endpoint.uri).origin);
    const status = await new Promise<number>((resolve, reject) => {
      const req = client.request({ ':path': '/other-release/discover' });
      req.on('response', (h) => resolve(Number(h[':status'])));
      req.on('error', reject);
      req.resume();
      req.end();
    });
    expect(status).toBe(404);
    const clientClosed = new Promise<void>((resolve) => client.once('close', () => resolve()));

    const stopped = await Promise.race([
      endpoint.stop().then(() => 'stopped'),
      new Promise((r) => setTimeout(() => r('still waiting for the open connection'), 10_000)),
    ]);
    expect(stopped).toBe('stopped');
    await clientClosed;
    client.destroy();
  }, 20_000);
});
