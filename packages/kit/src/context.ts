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

/** Keeps a caller-supplied id only when it looks like one of ours; never trusts free text. */
export function requestIdFrom(value: unknown): string {
  return typeof value === 'string' && /^req_[0-9A-Za-z]{24}$/.test(value) ? value : newId('request');
}
