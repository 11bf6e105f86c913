// The gateway's security headers are helmet's, on every kind of response. Real HTTP to a
// listening server: light-my-request (inject) does not load under jest's ESM mode.
import { afterAll, describe, expect, it } from '@jest/globals';
import helmet from '@fastify/helmet';
import Fastify from 'fastify';
import securityHeaders, { SECURITY_HEADERS } from '../src/plugins/security-headers.js';

const OWN = new Set(['content-type', 'content-length', 'date', 'connection', 'keep-alive']);

const apps: ReturnType<typeof Fastify>[] = [];
afterAll(async () => {
  for (const app of apps) await app.close();
});

function securityPart(headers: Headers): Record<string, string> {
  return Object.fromEntries([...headers].filter(([name]) => !OWN.has(name)));
}

/** A listening app with the given plugin and three routes; answers `get(path)`. */
async function appWith(register: (app: ReturnType<typeof Fastify>) => Promise<void>) {
  const app = Fastify();
  apps.push(app);
  await register(app);
  app.get('/ok', async () => ({ ok: true }));
  app.get('/fails', async () => {
    throw Object.assign(new Error('no'), { statusCode: 401 });
  });
  app.get('/own', async (_request, reply) =>
    reply.header('cross-origin-resource-policy', 'cross-origin').send('x'),
  );
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  return { get: (path: string) => fetch(url + path) };
}

describe('security headers', () => {
  it('are exactly what @fastify/helmet sends with CSP off', async () => {
    const reference = await appWith(async (app) => {
      await app.register(helmet, { global: true, contentSecurityPolicy: false });
    });
    const res = await reference.get('/ok');
    expect(securityPart(res.headers)).toEqual(SECURITY_HEADERS);
  });

  it('are on successes, errors and unknown routes alike', async () => {
    const app = await appWith(async (a) => {
      await a.register(securityHeaders);
    });
    for (const [url, status] of [
      ['/ok', 200],
      ['/fails', 401],
      ['/missing', 404],
    ] as const) {
      const res = await app.get(url);
      expect(res.status).toBe(status);
      expect(securityPart(res.headers)).toEqual(SECURITY_HEADERS);
    }
  });

  it('give way to a header the route sets itself', async () => {
    const app = await appWith(async (a) => {
      await a.register(securityHeaders);
    });
    const res = await app.get('/own');
    expect(res.headers.get('cross-origin-resource-policy')).toBe('cross-origin');
    expect(res.headers.get('x-frame-options')).toBe('SAMEORIGIN');
  });
});
