// Traces (OpenTelemetry). Off unless OTEL_EXPORTER_OTLP_ENDPOINT is set: then a tracer
// provider exports spans by OTLP/HTTP (batched) and the W3C `traceparent` header carries the
// context between processes. Spans are made at the system's own seams (the gateway's request,
// each gRPC call on both sides, the outbox row → NATS message → consumer, Restate ingress
// calls) because the code is ESM and ts-proto builds its gRPC client classes at import time,
// before any monkey-patching loader could see them; PostgreSQL queries are traced by
// @opentelemetry/instrumentation-pg, applied to the `pg` module this kit uses. With tracing
// off every helper here is a plain call (`tracing` is false, nothing is allocated).
import {
  context,
  propagation,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Span,
  type TextMapGetter,
  type TextMapSetter,
} from '@opentelemetry/api';
import type { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import type { TracerProvider } from '@opentelemetry/sdk-trace';
import { createRequire } from 'node:module';
import pg from 'pg';

export { SpanKind, type Span };

let provider: TracerProvider | null = null;
/** True once `startTracing` found an endpoint; every helper is a no-op otherwise. */
export let tracing = false;

export const TRACEPARENT = 'traceparent';

/**
 * Starts tracing for this process when `OTEL_EXPORTER_OTLP_ENDPOINT` is set (the exporter
 * posts to `<endpoint>/v1/traces`; OTEL_EXPORTER_OTLP_TRACES_ENDPOINT and _HEADERS are read by
 * the exporter as usual). Idempotent. Returns whether tracing is on.
 */
export async function startTracing(service: string, env: NodeJS.ProcessEnv = process.env): Promise<boolean> {
  if (provider) return true;
  if (!env.OTEL_EXPORTER_OTLP_ENDPOINT && !env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) return false;
  // Loaded only when tracing is on: together ~0.3 s of CPU at every process start otherwise.
  const [{ AsyncLocalStorageContextManager }, { W3CTraceContextPropagator }, { OTLPTraceExporter }] =
    await Promise.all([
      import('@opentelemetry/context-async-hooks'),
      import('@opentelemetry/core'),
      import('@opentelemetry/exporter-trace-otlp-http'),
    ]);
  const [{ PgInstrumentation }, { resourceFromAttributes }, { BatchSpanProcessor, TracerProvider }] =
    await Promise.all([
      import('@opentelemetry/instrumentation-pg'),
      import('@opentelemetry/resources'),
      import('@opentelemetry/sdk-trace'),
    ]);
  if (provider) return true; // started meanwhile
  provider = new TracerProvider({
    resource: resourceFromAttributes({ 'service.name': env.OTEL_SERVICE_NAME ?? `hallmark-${service}` }),
    spanProcessors: [
      new BatchSpanProcessor({ exporter: new OTLPTraceExporter(), scheduledDelayMillis: 500 }),
    ],
  });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
  instrumentPg(new PgInstrumentation({ enabled: false, requireParentSpan: true }));
  tracing = true;
  return true;
}

/** Flushes and stops the exporter (graceful shutdown). */
export async function stopTracing(): Promise<void> {
  await provider?.shutdown().catch(() => undefined);
}

/** pg and pg-pool as the kit loads them (ESM imports bypass require hooks, so patch directly). */
function instrumentPg(inst: PgInstrumentation): void {
  inst.setTracerProvider(trace.getTracerProvider());
  const pgPool = createRequire(createRequire(import.meta.url).resolve('pg'))('pg-pool') as unknown;
  for (const def of inst.getModuleDefinitions()) {
    if (def.name === 'pg') def.patch?.(pg, '8.0.0');
    if (def.name === 'pg-pool') def.patch?.(pgPool, '3.0.0');
  }
}

const tracer = () => trace.getTracer('hallmark');

const recordGetter: TextMapGetter<Record<string, unknown>> = {
  keys: (c) => Object.keys(c),
  get: (c, k) => {
    const v = c[k];
    return typeof v === 'string' || Array.isArray(v) ? (v as string | string[]) : undefined;
  },
};
const recordSetter: TextMapSetter<Record<string, string>> = { set: (c, k, v) => void (c[k] = v) };

/** The W3C headers of the current context (empty with tracing off or no active span). */
export function traceHeaders(): Record<string, string> {
  const out: Record<string, string> = {};
  if (tracing) propagation.inject(context.active(), out, recordSetter);
  return out;
}

/** The current `traceparent`, or null. */
export function currentTraceparent(): string | null {
  return tracing ? (traceHeaders()[TRACEPARENT] ?? null) : null;
}

/** A context from carried headers (a `traceparent` in a record, metadata or NATS headers). */
export function contextFrom(carrier: Record<string, unknown> | undefined): Context {
  if (!tracing || !carrier) return context.active();
  return propagation.extract(context.active(), carrier, recordGetter);
}

/**
 * Runs `fn` inside a new span (child of `parent`, or of the active context) and ends it when
 * `fn` settles, marking a throw as an error. With tracing off it is `fn()`.
 */
export function inSpan<T>(
  name: string,
  opts: { kind?: SpanKind; attributes?: Attributes; parent?: Context },
  fn: (span: Span | undefined) => Promise<T>,
): Promise<T> {
  if (!tracing) return fn(undefined);
  const parent = opts.parent ?? context.active();
  const span = tracer().startSpan(name, { kind: opts.kind, attributes: opts.attributes }, parent);
  return context.with(trace.setSpan(parent, span), async () => {
    try {
      return await fn(span);
    } catch (err) {
      span.recordException(err as Error);
      span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error).message });
      throw err;
    } finally {
      span.end();
    }
  });
}

/** For callback-shaped code (Fastify hooks): a started span and the context it is active in. */
export function startSpan(
  name: string,
  opts: { kind?: SpanKind; attributes?: Attributes; parent?: Context },
): { span: Span; ctx: Context } | null {
  if (!tracing) return null;
  const parent = opts.parent ?? context.active();
  const span = tracer().startSpan(name, { kind: opts.kind, attributes: opts.attributes }, parent);
  return { span, ctx: trace.setSpan(parent, span) };
}

/** Runs `fn` with `ctx` as the active trace context (or plainly with tracing off). */
export function withTraceContext<T>(ctx: Context | undefined, fn: () => T): T {
  return tracing && ctx ? context.with(ctx, fn) : fn();
}

export function markError(span: Span | undefined, message: string): void {
  span?.setStatus({ code: SpanStatusCode.ERROR, message });
}
