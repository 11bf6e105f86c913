// gRPC client helper, one style for every kind of call: unary RPCs as promise methods
// (`api`), server streams as async iterables (`streams`), client streams as uploads
// (`uploads`), each typed from the ts-proto client. Every call has a deadline and carries the
// request id (and trace context) in metadata; errors come back as HallmarkError; retries only
// for unary calls the caller marks idempotent (reads) and only on transport failures.
import {
  credentials,
  Metadata,
  status as GrpcStatus,
  type Client,
  type ClientReadableStream,
  type ClientWritableStream,
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

/** How a streaming call is bounded and ended. */
export interface StreamOptions {
  /**
   * Bounds the whole stream (default 10 min for a server stream, 60 s for an upload);
   * `Infinity` for a stream that stays open until `signal` ends it (a listen session).
   */
  deadlineMs?: number;
  /** Ends the stream early; the iteration then just ends. */
  signal?: AbortSignal;
}

/**
 * The server-streaming methods of a ts-proto grpc-js client, as async iterables of their
 * messages (read as the consumer asks: flow control reaches the server). A failure is thrown
 * as a HallmarkError; breaking out of the loop cancels the call.
 */
export type StreamMethods<C> = {
  [
    K in keyof C as C[K] extends (req: any, opts?: any) => ClientReadableStream<any> ? K : never
  ]: C[K] extends (req: infer Req, opts?: any) => ClientReadableStream<infer Res>
    ? (req: Req, opts?: StreamOptions) => AsyncIterable<Res>
    : never;
};

/**
 * The client-streaming methods of a ts-proto grpc-js client: every message of `requests` is
 * written (honouring back-pressure), the server's one answer returned. Never retried (a
 * stream cannot be replayed).
 */
export type UploadMethods<C> = {
  [K in keyof C as C[K] extends (...a: any[]) => ClientWritableStream<any> ? K : never]: C[K] extends (
    md: any,
    opts: any,
    callback: Callback<infer Res>,
  ) => ClientWritableStream<infer Req>
    ? (requests: Iterable<Req> | AsyncIterable<Req>, opts?: Pick<StreamOptions, 'deadlineMs'>) => Promise<Res>
    : never;
};

export interface GrpcClient<C> {
  /** Unary RPCs as promises, with a deadline, retried only when marked idempotent. */
  api: AsyncClient<C>;
  /** Server-streaming RPCs as async iterables. */
  streams: StreamMethods<C>;
  /** Client-streaming RPCs: an iterable of messages in, the server's answer out. */
  uploads: UploadMethods<C>;
  /** The connection (its state, for tests and probes); calls go through the three above. */
  channel: ReturnType<Client['getChannel']>;
  close(): void;
}

const STREAM_DEADLINE_MS = 600_000;
const UPLOAD_DEADLINE_MS = 60_000;

/** What every call carries: the request id, and the caller's trace context when tracing. */
function outgoingMetadata(): Metadata {
  const md = new Metadata();
  const requestId = currentRequestId();
  if (requestId) md.set(REQUEST_ID_HEADER, requestId);
  if (tracing) for (const [k, v] of Object.entries(traceHeaders())) md.set(k, v);
  return md;
}

/** A call's failure as a HallmarkError (a ServiceError rebuilt; anything else as it is). */
const rebuilt = (err: unknown) =>
  (err as ServiceError).code !== undefined ? fromServiceError(err as ServiceError) : err;

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
      const md = outgoingMetadata();
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
  async function* serverStream(method: string, req: unknown, opts: StreamOptions = {}) {
    const call = (raw as any)[method](req, outgoingMetadata(), {
      deadline: Date.now() + (opts.deadlineMs ?? STREAM_DEADLINE_MS),
    }) as ClientReadableStream<unknown>;
    const cancel = () => call.cancel();
    if (opts.signal?.aborted) cancel();
    opts.signal?.addEventListener('abort', cancel);
    try {
      for await (const message of call) yield message;
    } catch (err) {
      if (opts.signal?.aborted && (err as ServiceError).code === GrpcStatus.CANCELLED) return;
      throw rebuilt(err);
    } finally {
      opts.signal?.removeEventListener('abort', cancel);
      call.cancel(); // a no-op once the stream ended; else the consumer stopped reading
    }
  }
  const upload = (
    method: string,
    requests: Iterable<unknown> | AsyncIterable<unknown>,
    opts: StreamOptions = {},
  ) =>
    new Promise<unknown>((resolve, reject) => {
      const call = (raw as any)[method](
        outgoingMetadata(),
        { deadline: Date.now() + (opts.deadlineMs ?? UPLOAD_DEADLINE_MS) },
        (err: ServiceError | null, res: unknown) => (err ? reject(fromServiceError(err)) : resolve(res)),
      ) as ClientWritableStream<unknown>;
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
  const byMethod = <M>(make: (method: string) => M) =>
    new Proxy({}, { get: (_t, method: string) => make(method) });
  return {
    api,
    streams: byMethod(
      (m) => (req: unknown, o?: StreamOptions) => serverStream(m, req, o),
    ) as StreamMethods<C>,
    uploads: byMethod(
      (m) => (reqs: Iterable<unknown>, o?: StreamOptions) => upload(m, reqs, o),
    ) as UploadMethods<C>,
    channel: raw.getChannel(),
    close: () => raw.close(),
  };
}
