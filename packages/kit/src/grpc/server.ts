// gRPC server helper: every service serves its handlers plus the standard health
// protocol and reflection, maps thrown errors to status + metadata, runs each call
// inside the caller's request context, and shuts down gracefully (stop accepting,
// drain in-flight calls, then force after a deadline).
import {
  Server,
  ServerCredentials,
  status,
  type handleClientStreamingCall,
  type handleServerStreamingCall,
  type ServerWritableStream,
  type ServiceDefinition,
  type ServiceError,
  type UntypedServiceImplementation,
} from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { ReflectionService } from '@grpc/reflection';
import { HealthImplementation, type ServingStatusMap } from 'grpc-health-check';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Logger } from 'pino';
import { requestIdFrom, runWithContext, REQUEST_ID_HEADER } from '../context.js';
import { HallmarkError } from '../errors.js';
import { histogram } from '../metrics.js';
import { contextFrom, inSpan, SpanKind, tracing } from '../telemetry.js';
import { toServiceError } from './errors.js';

/** RED per gRPC method, server side: one histogram (its _count is the rate, `code` the errors). */
const serverSeconds = () =>
  histogram(
    'hallmark_grpc_server_handling_seconds',
    'gRPC server call duration by service, method and status code',
    ['grpc_service', 'grpc_method', 'grpc_code'],
  );

export interface CallInfo {
  requestId: string;
  /** Milliseconds until the caller's deadline (Infinity when none). */
  deadlineMs: number;
}

/**
 * A server-streaming call as its handler sees it: `write` resolves once the message is
 * handed to the transport (after `drain` when the buffer is full) and does nothing after
 * the caller cancelled; `signal` aborts when the caller cancels or goes away.
 */
export interface StreamCall<Res> extends CallInfo {
  write(message: Res): Promise<void>;
  signal: AbortSignal;
}

/**
 * Turns a ts-proto `XServer` interface into async handlers: unary `(req, call) => Promise<res>`,
 * client-streaming `(requests: AsyncIterable<req>, call) => Promise<res>`,
 * server-streaming either `(req, stream) => Promise<void>` writing with `stream.write` (resolving
 * ends the stream) or `(req, call) => AsyncIterable<res>` (each item one message, written as
 * the caller reads them: a slow reader holds the producer; a throw ends the call with its error).
 */
export type AsyncHandlers<S> = {
  [K in keyof S as string extends K ? never : K]: S[K] extends handleClientStreamingCall<infer Req, infer Res>
    ? (requests: AsyncIterable<Req>, call: CallInfo) => Promise<Res>
    : S[K] extends handleServerStreamingCall<infer Req, infer Res>
      ? (req: Req, call: StreamCall<Res>) => Promise<void> | AsyncIterable<Res>
      : S[K] extends (call: infer C, cb: infer CB) => void
        ? C extends { request: infer Req }
          ? CB extends (err: any, value?: infer Res, ...rest: any[]) => void
            ? (req: Req, call: CallInfo) => Promise<NonNullable<Res>>
            : never
          : never
        : never;
};

export interface ServiceBinding {
  definition: ServiceDefinition;
  handlers: Record<string, (req: any, call: any) => Promise<any> | AsyncIterable<any>>;
}

/** Binds a typed handler object to its generated service definition. */
export function bind<S>(definition: ServiceDefinition, handlers: AsyncHandlers<S>): ServiceBinding {
  return { definition, handlers: handlers as unknown as ServiceBinding['handlers'] };
}

export interface GrpcServerOptions {
  name: string;
  address: string;
  services: ServiceBinding[];
  log: Logger;
  /** .proto files (relative to the proto root) to expose through reflection. */
  protoFiles?: string[];
  /** Close a client's connection after this long (HALLMARK_GRPC_MAX_CONNECTION_AGE_MS): it reconnects. */
  maxConnectionAgeMs?: number;
}

export interface RunningGrpcServer {
  port: number;
  health: HealthImplementation;
  /** Health entries that report the server's readiness ('' and each served service). */
  healthServices: string[];
  shutdown(graceMs?: number): Promise<void>;
}

/**
 * The .proto sources served through reflection: the @hallmark/proto package, found by module
 * resolution so it is right in the repository and in a service's production tree alike.
 */
export const PROTO_ROOT = path.dirname(
  createRequire(import.meta.url).resolve('@hallmark/proto/package.json'),
);

function deadlineOf(call: any): number {
  const deadline = call.getDeadline?.();
  return deadline instanceof Date
    ? deadline.getTime() - Date.now()
    : typeof deadline === 'number' && isFinite(deadline)
      ? deadline - Date.now()
      : Infinity;
}

/** A server-streaming handler: ends the stream when it resolves, sends the error when it throws. */
function wrapStream(name: string, method: string, fn: ServiceBinding['handlers'][string], log: Logger) {
  return (call: ServerWritableStream<unknown, unknown>) => {
    const requestId = requestIdFrom(call.metadata.get(REQUEST_ID_HEADER)[0]);
    const cancel = new AbortController();
    const gone = () => cancel.abort();
    call.on('cancelled', gone);
    call.on('close', gone);
    call.on('error', gone);
    const write = (message: unknown) =>
      new Promise<void>((resolve) => {
        if (cancel.signal.aborted) return resolve();
        if (call.write(message)) return resolve();
        const done = () => {
          call.off('drain', done);
          cancel.signal.removeEventListener('abort', done);
          resolve();
        };
        call.once('drain', done);
        cancel.signal.addEventListener('abort', done);
      });
    const info = { requestId, deadlineMs: deadlineOf(call), write, signal: cancel.signal };
    runWithContext({ requestId }, () => {
      (async () => {
        // A handler may answer an iterable or an array (or a promise of one: test fakes wrap
        // every method alike) instead of writing: each item is written when the stream has room.
        const result: unknown = await fn(call.request, info);
        const iterable =
          Array.isArray(result) ||
          (!!result && typeof (result as AsyncIterable<unknown>)[Symbol.asyncIterator] === 'function');
        if (iterable)
          for await (const message of result as AsyncIterable<unknown>) {
            if (cancel.signal.aborted) break;
            await write(message);
          }
      })().then(
        () => {
          if (!cancel.signal.aborted) call.end();
        },
        (err) => {
          if (cancel.signal.aborted) return;
          if (!(err instanceof HallmarkError))
            log.error({ err, rpc: `${name}/${method}` }, 'unhandled error in streaming RPC');
          const se = safeServiceError(err, log, `${name}/${method}`);
          answer(
            log,
            `${name}/${method}`,
            () => call.emit('error', se),
            () => call.destroy(),
          );
        },
      );
    });
  };
}

/** A unary handler, or a client-streaming one (`clientStream`: it reads the call's messages). */
function wrap(
  service: string,
  method: string,
  fn: ServiceBinding['handlers'][string],
  log: Logger,
  clientStream = false,
) {
  const seconds = serverSeconds();
  const spanName = `${service}/${method}`;
  return (call: any, callback: (err: any, res?: any) => void) => {
    const started = process.hrtime.bigint();
    const requestId = requestIdFrom(call.metadata.get(REQUEST_ID_HEADER)[0]);
    const deadlineMs = deadlineOf(call);
    const done = (code: number) =>
      seconds.observe(
        { grpc_service: service, grpc_method: method, grpc_code: GRPC_CODE_NAMES[code] ?? String(code) },
        Number(process.hrtime.bigint() - started) / 1e9,
      );
    const parent = tracing ? contextFrom(call.metadata.getMap()) : undefined;
    runWithContext({ requestId }, () => {
      void inSpan(
        spanName,
        { kind: SpanKind.SERVER, parent, attributes: { 'rpc.system': 'grpc', 'rpc.method': spanName } },
        (span) =>
          // Promise.resolve().then: a handler that throws before its first await is a rejection
          // here too, never a throw out of grpc-js's call dispatch.
          Promise.resolve()
            .then(() => fn(clientStream ? call : call.request, { requestId, deadlineMs }) as Promise<unknown>)
            .then(
              (res) => {
                done(0);
                answer(log, spanName, () => callback(null, res), callback);
              },
              (err) => {
                if (!(err instanceof HallmarkError))
                  log.error({ err, rpc: `${service}/${method}` }, 'unhandled error in RPC');
                const se = safeServiceError(err, log, spanName);
                done(se.code ?? 2);
                span?.setAttribute('rpc.grpc.status_code', se.code ?? 2);
                answer(log, spanName, () => callback(se), callback);
              },
            ),
      );
    });
  };
}

/**
 * The error's gRPC form, or a bare INTERNAL when even building it throws: the answer to one
 * request must never become an unhandled rejection that ends the process.
 */
function safeServiceError(err: unknown, log: Logger, rpc: string): Partial<ServiceError> {
  try {
    return toServiceError(err);
  } catch (buildErr) {
    log.error({ err: buildErr, rpc }, 'could not encode an RPC error; answering INTERNAL');
    return { code: status.INTERNAL, details: 'internal_error' };
  }
}

/** Sends an answer; if grpc-js throws while writing it, the call ends INTERNAL instead. */
function answer(log: Logger, rpc: string, send: () => void, callback: (err: any) => void): void {
  try {
    send();
  } catch (sendErr) {
    log.error({ err: sendErr, rpc }, 'could not send an RPC answer; answering INTERNAL');
    try {
      callback({ code: status.INTERNAL, details: 'internal_error' });
    } catch {
      // The call is already closed or broken: nothing more can be sent on it.
    }
  }
}

/** grpc-js status numbers to their names (the `grpc_code` label). */
const GRPC_CODE_NAMES: Record<number, string> = Object.fromEntries(
  Object.entries(status)
    .filter(([, v]) => typeof v === 'number')
    .map(([k, v]) => [v as number, k]),
);

export async function startGrpcServer(opts: GrpcServerOptions): Promise<RunningGrpcServer> {
  const server = new Server({
    // A bulk upload carries a CSV (≤ 10 MB) and a ZIP (≤ 100 MB) in one message.
    'grpc.max_receive_message_length': 128 * 1024 * 1024,
    // Nothing reads channelz; with it on, every call runs through its tracking handler.
    'grpc.enable_channelz': 0,
    // A client's connection is closed (GOAWAY) after a few minutes, so it resolves the name
    // again and reconnects: a replica added since gets calls (gRPC's A9 connection
    // management). Calls in flight finish on the old connection: streams such as a listen
    // session may run for hours, so the grace is a day.
    'grpc.max_connection_age_ms': opts.maxConnectionAgeMs ?? 300_000,
    'grpc.max_connection_age_grace_ms': 24 * 3600_000,
  });
  const statusMap: ServingStatusMap = { '': 'SERVING' };
  for (const svc of opts.services) {
    const impl: UntypedServiceImplementation = {};
    const first = Object.values(svc.definition)[0];
    const serviceName = first ? first.path.split('/')[1]! : opts.name;
    for (const [method, fn] of Object.entries(svc.handlers)) {
      // Labels and span names use the proto's method name (`RedeemVoucher`), as on the wire.
      const protoMethod = svc.definition[method]?.path.split('/')[2] ?? method;
      const streaming = (svc.definition[method] as { responseStream?: boolean } | undefined)?.responseStream;
      impl[method] = streaming
        ? wrapStream(serviceName, protoMethod, fn, opts.log)
        : wrap(serviceName, protoMethod, fn, opts.log, svc.definition[method]?.requestStream === true);
    }
    server.addService(svc.definition, impl);
    if (first) statusMap[first.path.split('/')[1]!] = 'SERVING';
  }
  const health = new HealthImplementation(statusMap);
  health.addToServer(server);
  if (opts.protoFiles?.length) {
    const pkg = protoLoader.loadSync(opts.protoFiles, { includeDirs: [PROTO_ROOT], keepCase: true });
    new ReflectionService(pkg).addToServer(server);
  }
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync(opts.address, ServerCredentials.createInsecure(), (err, p) =>
      err ? reject(err) : resolve(p),
    ),
  );
  opts.log.info({ address: opts.address, port }, 'gRPC server listening');
  return {
    port,
    health,
    healthServices: Object.keys(statusMap),
    async shutdown(graceMs = 10_000) {
      for (const svc of Object.keys(statusMap)) health.setStatus(svc, 'NOT_SERVING');
      await new Promise<void>((resolve) => {
        const force = setTimeout(() => {
          server.forceShutdown();
          resolve();
        }, graceMs);
        server.tryShutdown(() => {
          clearTimeout(force);
          resolve();
        });
      });
    },
  };
}
