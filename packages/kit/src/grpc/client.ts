// gRPC client helper: promise methods with a deadline on every call, the request id in
// metadata, errors rebuilt as HallmarkError, and retries only for calls the caller marks
// idempotent (reads) and only on transport failures.
import {
  credentials,
  Metadata,
  status as GrpcStatus,
  type Client,
  type ClientReadableStream,
  type ServiceError,
} from '@grpc/grpc-js';
import { currentRequestId, REQUEST_ID_HEADER } from '../context.js';
import { inSpan, SpanKind, traceHeaders, tracing } from '../telemetry.js';
import { fromServiceError } from './errors.js';

export interface CallOptions {
  deadlineMs?: number;
  /** Safe to repeat (a read, or a write with an idempotency key). */
  idempotent?: boolean;
}

type Callback<Res> = (err: ServiceError | null, res: Res) => void;

/** The first overload of a ts-proto unary method: `(request, callback)`. */
type FirstOverload<T> = T extends {
  (...a: infer A1): any;
  (...a: any[]): any;
  (...a: any[]): any;
}
  ? A1
  : never;

/** Promise form of a ts-proto grpc-js client: `method(req, opts?) => Promise<res>`. */
export type AsyncClient<C> = {
  [K in keyof C as FirstOverload<C[K]> extends [any, Callback<any>] ? K : never]: FirstOverload<
    C[K]
  > extends [infer Req, Callback<infer Res>]
    ? (req: Req, opts?: CallOptions) => Promise<Res>
    : never;
};

type ClientCtor<C> = new (
  address: string,
  creds: ReturnType<typeof credentials.createInsecure>,
  options?: object,
) => C;

const RETRYABLE = new Set([GrpcStatus.UNAVAILABLE, GrpcStatus.DEADLINE_EXCEEDED]);

type UnaryFn = (...a: unknown[]) => void;

/** Channel options of every client (the same everywhere, so clients of one address share a connection). */
const CHANNEL_OPTIONS = {
  'grpc.keepalive_time_ms': 30_000,
  // A bulk upload carries a CSV (≤ 10 MB) and a ZIP (≤ 100 MB) in one message.
  'grpc.max_receive_message_length': 128 * 1024 * 1024,
  // Nothing reads channelz; its bookkeeping would cost on every call.
  'grpc.enable_channelz': 0,
};

/**
 * A name that resolves to every replica (`dns:///` of a headless Service, an `ipv4:` list) is
 * served round robin over all of them. A plain host:port (one process, or a ClusterIP
 * Service) keeps pick_first: calls made while it reconnects wait for the connection instead
 * of failing fast, and the servers' max connection age (server.ts) still moves a ClusterIP
 * client from pod to pod now and then.
 */
function channelOptions(address: string): Record<string, unknown> {
  if (!/^(dns|ipv4|ipv6):/.test(address)) return CHANNEL_OPTIONS;
  return {
    ...CHANNEL_OPTIONS,
    'grpc.service_config': JSON.stringify({ loadBalancingConfig: [{ round_robin: {} }] }),
  };
}

/** The server-streaming methods of a ts-proto grpc-js client, by name, with their message type. */
export type StreamMethods<C> = {
  [
    K in keyof C as C[K] extends (req: any, opts?: any) => ClientReadableStream<any> ? K : never
  ]: C[K] extends (req: infer Req, opts?: any) => ClientReadableStream<infer Res>
    ? (req: Req, opts?: { signal?: AbortSignal }) => AsyncIterable<Res>
    : never;
};

/** Names of the server-streaming methods of a ts-proto client (for `stream`). */
type StreamMethodNames<C> = {
  [K in keyof C]: C[K] extends (req: infer _R, ...rest: any[]) => ClientReadableStream<any> ? K : never;
}[keyof C];
type StreamReq<F> = F extends (req: infer R, ...rest: any[]) => any ? R : never;
type StreamRes<F> = F extends (...a: any[]) => ClientReadableStream<infer T> ? T : never;

export interface GrpcClient<C> {
  api: AsyncClient<C>;
  /** Server-streaming RPCs as async iterables; no deadline, cancelled by `signal`. */
  streams: StreamMethods<C>;
  raw: C;
  /**
   * A server-streaming call as an async iterable of its messages (read as the consumer asks:
   * flow control reaches the server); its failure is thrown as a HallmarkError. Breaking
   * out of the loop cancels the call. `deadlineMs` bounds the whole stream (default 10 min).
   * (`streams.<Method>` is the same without a deadline, cancelled by a signal: for streams
   * that stay open, such as a listen session.)
   */
  stream<K extends StreamMethodNames<C>>(
    method: K,
    req: StreamReq<C[K]>,
    opts?: { deadlineMs?: number },
  ): AsyncIterable<StreamRes<C[K]>>;
  close(): void;
}

export function createGrpcClient<C extends Client>(
  Ctor: ClientCtor<C>,
  address: string,
  defaults: { deadlineMs?: number; retries?: number } = {},
): GrpcClient<C> {
  const raw = new Ctor(address, credentials.createInsecure(), channelOptions(address));
  const deadlineDefault = defaults.deadlineMs ?? 10_000;
  const retries = defaults.retries ?? 2;

  const callOnce = (fn: UnaryFn, req: unknown, deadlineMs: number) =>
    new Promise<unknown>((resolve, reject) => {
      const md = new Metadata();
      const requestId = currentRequestId();
      if (requestId) md.set(REQUEST_ID_HEADER, requestId);
      if (tracing) for (const [k, v] of Object.entries(traceHeaders())) md.set(k, v);
      // grpc-js records the caller's stack on every call (`new Error()`) to decorate a
      // failure; ours are rebuilt as HallmarkError without it, so skip the stack walk.
      const stackTraceLimit = Error.stackTraceLimit;
      Error.stackTraceLimit = 0;
      try {
        fn.call(
          raw,
          req,
          md,
          { deadline: Date.now() + deadlineMs },
          (err: ServiceError | null, res: unknown) => (err ? reject(err) : resolve(res)),
        );
      } finally {
        Error.stackTraceLimit = stackTraceLimit;
      }
    });

  const methodFor = (method: string) => {
    const fn = (raw as any)[method] as UnaryFn;
    const retryOrThrow = async (req: unknown, opts: CallOptions, deadlineMs: number, err: unknown) => {
      for (let attempt = 0; ; attempt++) {
        const se = err as ServiceError;
        if (
          !opts.idempotent ||
          attempt >= retries ||
          !RETRYABLE.has(se.code) ||
          se.metadata?.get('hallmark-error-code').length
        ) {
          throw fromServiceError(se);
        }
        await new Promise((r) => setTimeout(r, 50 * 2 ** attempt));
        try {
          return await callOnce(fn, req, deadlineMs);
        } catch (next) {
          err = next;
        }
      }
    };
    // Most calls succeed at once: that path is one call and no retry machinery.
    const plain = (req: unknown, opts: CallOptions = {}) => {
      const deadlineMs = opts.deadlineMs ?? deadlineDefault;
      return callOnce(fn, req, deadlineMs).catch((err) => retryOrThrow(req, opts, deadlineMs, err));
    };
    if (!tracing) return plain;
    // Traced: one client span around the call (and its retries), its context in the metadata.
    const path: string | undefined = (raw as any).constructor?.service?.[method]?.path;
    const name = path ? path.slice(1) : method;
    return (req: unknown, opts: CallOptions = {}) =>
      inSpan(name, { kind: SpanKind.CLIENT, attributes: { 'rpc.system': 'grpc' } }, () => plain(req, opts));
  };
  // One promise method per RPC, made on first use.
  const methods = new Map<string, ReturnType<typeof methodFor>>();
  const api = new Proxy({} as AsyncClient<C>, {
    get(_t, method: string) {
      let m = methods.get(method);
      if (!m) methods.set(method, (m = methodFor(method)));
      return m;
    },
  });
  const openStream = (method: string) =>
    async function* (req: unknown, opts: { signal?: AbortSignal } = {}): AsyncGenerator<unknown> {
      const md = new Metadata();
      const requestId = currentRequestId();
      if (requestId) md.set(REQUEST_ID_HEADER, requestId);
      const call = (raw as any)[method](req, md) as ClientReadableStream<unknown>;
      const cancel = () => call.cancel();
      opts.signal?.addEventListener('abort', cancel);
      try {
        for await (const message of call) yield message;
      } catch (err) {
        if (opts.signal?.aborted && (err as ServiceError).code === GrpcStatus.CANCELLED) return;
        throw fromServiceError(err as ServiceError);
      } finally {
        opts.signal?.removeEventListener('abort', cancel);
        call.cancel();
      }
    };
  const streams = new Proxy({} as StreamMethods<C>, {
    get: (_t, method: string) => openStream(method),
  });
  async function* stream(method: PropertyKey, req: unknown, opts: { deadlineMs?: number } = {}) {
    const md = new Metadata();
    const requestId = currentRequestId();
    if (requestId) md.set(REQUEST_ID_HEADER, requestId);
    const call = (raw as any)[method](req, md, {
      deadline: Date.now() + (opts.deadlineMs ?? 600_000),
    }) as ClientReadableStream<unknown>;
    let ended = false;
    try {
      for await (const msg of call) yield msg;
      ended = true;
    } catch (err) {
      ended = true;
      throw fromServiceError(err as ServiceError);
    } finally {
      if (!ended) call.cancel();
    }
  }
  return { api, streams, raw, stream: stream as GrpcClient<C>['stream'], close: () => raw.close() };
}

/** Metadata and deadline of a streaming call (request id carried like unary calls). */
function streamCallArgs(deadlineMs: number): [Metadata, { deadline: number }] {
  const md = new Metadata();
  const requestId = currentRequestId();
  if (requestId) md.set(REQUEST_ID_HEADER, requestId);
  return [md, { deadline: Date.now() + deadlineMs }];
}

/**
 * A client-streaming call: writes every message of `requests` (honouring back-pressure) and
 * answers the server's one response. Never retried (a stream cannot be replayed).
 */
export function clientStreamCall<Req, Res>(
  client: Client,
  method: string,
  requests: Iterable<Req> | AsyncIterable<Req>,
  opts: { deadlineMs?: number } = {},
): Promise<Res> {
  return new Promise<Res>((resolve, reject) => {
    const fn = (client as any)[method] as (...a: unknown[]) => any;
    const call = fn.call(
      client,
      ...streamCallArgs(opts.deadlineMs ?? 60_000),
      (err: ServiceError | null, res: Res) => (err ? reject(fromServiceError(err)) : resolve(res)),
    );
    void (async () => {
      try {
        for await (const msg of requests) {
          if (!call.write(msg)) await new Promise((r) => call.once('drain', r));
        }
        call.end();
      } catch (err) {
        call.cancel();
        reject(err);
      }
    })();
  });
}

/** A server-streaming call as an async iterable of the server's messages. */
export async function* serverStreamCall<Req, Res>(
  client: Client,
  method: string,
  request: Req,
  opts: { deadlineMs?: number } = {},
): AsyncGenerator<Res> {
  const fn = (client as any)[method] as (...a: unknown[]) => any;
  const call = fn.call(client, request, ...streamCallArgs(opts.deadlineMs ?? 60_000));
  try {
    for await (const msg of call as AsyncIterable<Res>) yield msg;
  } catch (err) {
    throw (err as ServiceError).code !== undefined ? fromServiceError(err as ServiceError) : err;
  } finally {
    call.cancel();
  }
}
