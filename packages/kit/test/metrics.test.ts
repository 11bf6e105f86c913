// The kit's metrics and tracing seams without a stack: the metrics port per process from the
// environment, /metrics on its own server, gauges read at scrape time (a failing source does
// not break the scrape), request ids kept only when well-formed, and tracing entirely off
// without an OTLP endpoint.
import { describe, expect, it } from '@jest/globals';
import {
  counter,
  gaugeFrom,
  inSpan,
  metricsHostFor,
  metricsPortFor,
  requestIdFrom,
  startMetricsServer,
  startTracing,
  traceHeaders,
  tracing,
} from '../src/index.js';
import { connect } from 'node:net';
import { networkInterfaces } from 'node:os';

describe('metricsPortFor', () => {
  it("takes a pod's HALLMARK_METRICS_PORT first, then the process's own, else none", () => {
    expect(metricsPortFor('bulk', { HALLMARK_METRICS_PORT: '9464', HALLMARK_BULK_METRICS_PORT: '1' })).toBe(
      9464,
    );
    expect(metricsPortFor('bulk', { HALLMARK_BULK_METRICS_PORT: '9470' })).toBe(9470);
    expect(metricsPortFor('bulk', {})).toBeUndefined();
    expect(() => metricsPortFor('bulk', { HALLMARK_METRICS_PORT: 'x' })).toThrow(/invalid metrics port/);
  });
});

describe('the metrics server', () => {
  it('serves counters and gauges read at scrape time on its own port, 404 elsewhere', async () => {
    const server = await startMetricsServer(0, '127.0.0.1');
    try {
      counter('hallmark_test_things_total', 'things', ['kind']).inc({ kind: 'a' }, 3);
      let value = 1;
      const off = gaugeFrom('hallmark_test_level', 'level', [], async () => [{ labels: {}, value }]);
      gaugeFrom('hallmark_test_level', 'level', [], async () => {
        throw new Error('a source that fails');
      });
      const scrape = async () => (await fetch(server.url)).text();
      expect(await scrape()).toContain('hallmark_test_things_total{kind="a"} 3');
      expect(await scrape()).toContain('hallmark_test_level 1');
      value = 7;
      expect(await scrape()).toContain('hallmark_test_level 7');
      off();
      value = 9;
      expect(await scrape()).toContain('hallmark_test_level 7');
      // The same name gives the same counter (other modules add to it).
      counter('hallmark_test_things_total', 'things', ['kind']).inc({ kind: 'a' });
      expect(await scrape()).toContain('hallmark_test_things_total{kind="a"} 4');
      expect((await fetch(server.url.replace('/metrics', '/other'))).status).toBe(404);
    } finally {
      await server.close();
    }
  });
});

/** An IPv4 address of this machine other than loopback, if it has one. */
const outsideAddress = (): string | undefined =>
  Object.values(networkInterfaces())
    .flat()
    .find((i) => i && i.family === 'IPv4' && !i.internal)?.address;

/** Whether a TCP connection to host:port is accepted. */
const answers = (host: string, port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect({ host, port });
    socket.setTimeout(2000);
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => (socket.destroy(), resolve(false)));
  });

describe('where the metrics server listens (relayer address and balance, business counts)', () => {
  it('binds loopback unless HALLMARK_METRICS_HOST names an address; a non-IP value refuses to start', () => {
    expect(metricsHostFor({})).toBe('127.0.0.1');
    expect(metricsHostFor({ HALLMARK_METRICS_HOST: '' })).toBe('127.0.0.1');
    expect(metricsHostFor({ HALLMARK_METRICS_HOST: '10.244.1.7' })).toBe('10.244.1.7');
    expect(metricsHostFor({ HALLMARK_METRICS_HOST: 'fd00::7' })).toBe('fd00::7');
    expect(() => metricsHostFor({ HALLMARK_METRICS_HOST: 'pod.local' })).toThrow(/invalid metrics host/);
  });

  it("by default does not answer on this machine's non-loopback address; bound to that address, answers there only", async () => {
    const before = process.env.HALLMARK_METRICS_HOST;
    delete process.env.HALLMARK_METRICS_HOST;
    const server = await startMetricsServer(0);
    const outside = outsideAddress();
    try {
      expect(server.host).toBe('127.0.0.1');
      expect((await fetch(server.url)).status).toBe(200);
      // A machine with loopback only: the bound address above is the proof.
      if (outside) expect(await answers(outside, server.port)).toBe(false);
    } finally {
      await server.close();
      if (before !== undefined) process.env.HALLMARK_METRICS_HOST = before;
    }
    if (!outside) return;
    // As in a pod (HALLMARK_METRICS_HOST = status.podIP): that address, not loopback.
    const pod = await startMetricsServer(0, metricsHostFor({ HALLMARK_METRICS_HOST: outside }));
    try {
      expect(pod.url).toBe(`http://${outside}:${pod.port}/metrics`);
      expect((await fetch(pod.url)).status).toBe(200);
      expect(await answers('127.0.0.1', pod.port)).toBe(false);
    } finally {
      await pod.close();
    }
  });
});

describe('request ids', () => {
  it.each(['req_4Q2m9XbT7cLp0aZ1yN8kVw3e', '0b9e7c52-3f1a-4d2e-9c61-7a5b8e2f4d10', 'lb-01.eu:8f3a2c1d'])(
    'keeps a well-formed id (%s)',
    (id) => expect(requestIdFrom(id)).toBe(id),
  );
  it.each(['short', 'a'.repeat(65), 'has space 123', '-leading-dash', 'new\nline1234', undefined, 42])(
    'replaces anything else (%p) by a fresh req_ id',
    (id) => expect(requestIdFrom(id)).toMatch(/^req_[0-9A-Za-z]{24}$/),
  );
});

describe('tracing', () => {
  it('is entirely off without OTEL_EXPORTER_OTLP_ENDPOINT', async () => {
    await expect(startTracing('kit-test', {})).resolves.toBe(false);
    expect(tracing).toBe(false);
    expect(traceHeaders()).toEqual({});
    expect(await inSpan('x', {}, async (span) => span)).toBeUndefined();
  });
});
