// Registering a service's Restate endpoint with the Restate admin API: one function for the
// service that registers itself at start (bulk) and for the dev stack and its tests. And the
// request context across the ingress: the caller's request id and trace go in as headers and
// come back out in the handler.
import { currentRequestId, REQUEST_ID_HEADER, requestIdFrom, runWithContext } from './context.js';
import { contextFrom, inSpan, SpanKind, traceHeaders, tracing } from './telemetry.js';
import { ConfigError } from './config.js';

/**
 * Registers (or re-registers, `force: true`) a service deployment, e.g. a service's Restate
 * endpoint `http://127.0.0.1:9180`. Retries only while the admin API is unreachable or answers
 * 503 (still starting); any other refusal (e.g. the endpoint does not answer) is thrown at once.
 * `timeoutMs` may be Infinity (a service waiting for Restate to come up).
 */
export async function registerRestateDeployment(
  adminUrl: string,
  uri: string,
  opts: { timeoutMs?: number } = {},
): Promise<unknown> {
  const deadline = Date.now() + (opts.timeoutMs ?? 15_000);
  for (;;) {
    let status = 0;
    let body = '';
    try {
      const res = await fetch(new URL('/deployments', adminUrl), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ uri, force: true }),
        // Restate calls the endpoint for discovery before answering; that is bounded too.
        signal: AbortSignal.timeout(Math.min(10_000, Math.max(1000, deadline - Date.now()))),
      });
      status = res.status;
      body = await res.text();
      if (res.ok) return body ? (JSON.parse(body) as unknown) : {};
    } catch (err) {
      body = (err as Error).message;
    }
    const retryable = status === 0 || status === 503;
    if (!retryable || Date.now() >= deadline) {
      throw new Error(`Restate refused deployment ${uri} (${status || 'no response'}): ${body}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

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

/**
 * Restate request identity: the public keys (`publickeyv1_…`, comma-separated in
 * HALLMARK_RESTATE_IDENTITY_KEYS) whose signatures a service's Restate endpoint accepts. Set,
 * the endpoint refuses every request not signed by a Restate server holding one of the
 * private keys (the SDK's `withIdentityV1`); unset (the dev default), it accepts any caller.
 */
export function restateIdentityKeys(env: NodeJS.ProcessEnv = process.env): string[] {
  const raw = (env.HALLMARK_RESTATE_IDENTITY_KEYS ?? '').trim();
  if (!raw) return [];
  const keys = raw.split(',').map((k) => k.trim());
  const bad = keys.filter((k) => !/^publickeyv1_[1-9A-HJ-NP-Za-km-z]{32,64}$/.test(k));
  if (bad.length)
    throw new ConfigError([
      `HALLMARK_RESTATE_IDENTITY_KEYS: expected publickeyv1_… keys, got ${bad.join(', ')}`,
    ]);
  return keys;
}

/** Applies `restateIdentityKeys()` to an endpoint (a no-op when none are configured). */
export function withRestateIdentity<E extends { withIdentityV1(...keys: string[]): E }>(endpoint: E): E {
  const keys = restateIdentityKeys();
  return keys.length ? endpoint.withIdentityV1(...keys) : endpoint;
}
