// The kit's metrics and tracing seams without a stack: the metrics port per process from the
// environment, /metrics on its own server, gauges read at scrape time (a failing source does
// not break the scrape), request ids kept only when well-formed, and tracing entirely off
// without an OTLP endpoint.
import { describe, expect, it } from '@jest/globals';
import {
  counter,
  gaugeFrom,
  inSpan,
  metricsPortFor,
  requestIdFrom,
  startMetricsServer,
  startTracing,
  traceHeaders,
  tracing,
} from '../src/index.js';

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
    expect(startTracing('kit-test', {})).toBe(false);
    expect(tracing).toBe(false);
    expect(traceHeaders()).toEqual({});
    expect(await inSpan('x', {}, async (span) => span)).toBeUndefined();
  });
});
