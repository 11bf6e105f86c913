// Restate's ingress through the SDK's typed clients (`@restatedev/restate-sdk-clients`), with
// the caller's request id and trace context added to every call (`restateCallHeaders`, read
// when the call is made, so each call carries its own request's context).
import * as clients from '@restatedev/restate-sdk-clients';
import { restateCallHeaders } from './context.js';

export type RestateIngress = clients.Ingress;

/**
 * A connection to Restate's ingress. Retries stay off (the client's default): each service's
 * keep-started worker re-sends what Restate did not accept, from the database.
 */
export function restateIngress(url: string): RestateIngress {
  return clients.connect({
    url: url.replace(/\/+$/, ''),
    fetch: (input, init) =>
      fetch(input, {
        ...init,
        headers: { ...(init?.headers as Record<string, string>), ...restateCallHeaders() },
      }),
  });
}

/** Call options: a bound wait and, for a send that must happen once, an idempotency key. */
export const callOpts = <I, O>(opts: { timeoutMs: number; idempotencyKey?: string }) =>
  clients.rpc.opts<I, O>({
    timeout: opts.timeoutMs,
    ...(opts.idempotencyKey ? { idempotencyKey: opts.idempotencyKey } : {}),
  });

export const sendOpts = <I>(opts: { timeoutMs: number; idempotencyKey?: string }) =>
  clients.rpc.sendOpts<I>({
    timeout: opts.timeoutMs,
    ...(opts.idempotencyKey ? { idempotencyKey: opts.idempotencyKey } : {}),
  });

/**
 * Runs a start or a signal, treating Restate's 409 (this workflow key already ran or runs:
 * exactly one per key) as done.
 */
export async function oncePerKey(call: () => PromiseLike<unknown>): Promise<void> {
  try {
    await call();
  } catch (err) {
    if (err instanceof clients.HttpCallError && err.status === 409) return;
    throw err;
  }
}
