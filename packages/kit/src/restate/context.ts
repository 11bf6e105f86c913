// The request context across Restate's ingress: the caller's request id and trace go in as
// headers (the ingress client adds them to every call) and come back out in the handler.
import { currentRequestId, REQUEST_ID_HEADER, requestIdFrom, runWithContext } from '../context.js';
import { contextFrom, inSpan, SpanKind, traceHeaders, tracing } from '../telemetry.js';

/**
 * Headers for a call to Restate's ingress: the request id and the W3C trace context of the
 * current context. Restate keeps them as the invocation's headers, so the handler reads them
 * back (`inInvocation`) on every attempt, after any restart.
 */
export function restateCallHeaders(): Record<string, string> {
  const requestId = currentRequestId();
  return { ...(requestId ? { [REQUEST_ID_HEADER]: requestId } : {}), ...traceHeaders() };
}

/** The part of a Restate handler context `inInvocation` reads. */
export interface InvocationLike {
  request(): { headers: ReadonlyMap<string, string>; id?: string };
  console: { info(message: string): void };
}

/**
 * Runs a Restate handler's body inside the request context its caller sent: log lines written
 * by its steps carry the caller's request id, its spans continue the caller's trace, and the
 * invocation's own console (silent on replay) names the request id once per attempt.
 */
export function inInvocation<T>(ctx: InvocationLike, name: string, fn: () => Promise<T>): Promise<T> {
  const headers = Object.fromEntries(ctx.request().headers);
  const requestId = requestIdFrom(headers[REQUEST_ID_HEADER]);
  ctx.console.info(`${name}: request_id=${requestId}`);
  return runWithContext({ requestId }, () =>
    tracing ? inSpan(name, { kind: SpanKind.SERVER, parent: contextFrom(headers) }, () => fn()) : fn(),
  );
}

/** A Restate handler run `inInvocation`: `run: invocation('BulkJob/run', async (ctx, input) => …)`. */
export function invocation<C extends InvocationLike, A extends unknown[], T>(
  name: string,
  handler: (ctx: C, ...args: A) => Promise<T>,
): (ctx: C, ...args: A) => Promise<T> {
  return (ctx, ...args) => inInvocation(ctx, name, () => handler(ctx, ...args));
}
