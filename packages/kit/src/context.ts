// Request context carried across async boundaries: the gateway mints `req_…`, it rides
// gRPC metadata into services and NATS headers into consumers, and every log line
// written inside the context carries it.
import { AsyncLocalStorage } from 'node:async_hooks';
import { newId } from './ids.js';

export interface RequestContext {
  requestId: string;
}

const storage = new AsyncLocalStorage<RequestContext>();

export const REQUEST_ID_HEADER = 'x-request-id';

export function runWithContext<T>(ctx: RequestContext, fn: () => T): T {
  return storage.run(ctx, fn);
}

export function currentRequestId(): string | undefined {
  return storage.getStore()?.requestId;
}

/**
 * A well-formed request id: 8–64 characters of letters, digits and `_ - . :`, starting with a
 * letter or digit — our own `req_…`, a UUID, or a load balancer's id. Nothing else (spaces,
 * quotes, control characters, anything longer) can reach a log line or a header.
 */
export const REQUEST_ID_PATTERN = /^[0-9A-Za-z][0-9A-Za-z_.:-]{7,63}$/;

/** Keeps a caller-supplied id only when it is well-formed; otherwise mints a `req_…`. */
export function requestIdFrom(value: unknown): string {
  return typeof value === 'string' && REQUEST_ID_PATTERN.test(value) ? value : newId('request');
}
