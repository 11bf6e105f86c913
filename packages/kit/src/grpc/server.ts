// gRPC server helper: every service serves its handlers plus the standard health
// protocol and reflection, maps thrown errors to status + metadata, runs each call
// inside the caller's request context, and shuts down gracefully (stop accepting,
// drain in-flight calls, then force after a deadline).
import {
  Server,
  ServerCredentials,
  type handleClientStreamingCall,
  type handleServerStreamingCall,
  type ServiceDefinition,
  type UntypedServiceImplementation,
} from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { ReflectionService } from '@grpc/reflection';
import { HealthImplementation, type ServingStatusMap } from 'grpc-health-check';
import path from 'node:path';
import type { Logger } from 'pino';
import { requestIdFrom, runWithContext, REQUEST_ID_HEADER } from '../context.js';
import { HallmarkError } from '../errors.js';
import { toServiceError } from './errors.js';

export interface CallInfo {
  requestId: string;
  /** Milliseconds until the caller's deadline (Infinity when none). */
  deadlineMs: number;
}

/**
 * Turns a ts-proto `XServer` interface into async handlers: unary `(req, call) => Promise<res>`,
 * client streaming `(requests: AsyncIterable<req>, call) => Promise<res>`, server streaming
 * `(req, call) => AsyncIterable<res>` (written with back-pressure).
 */
export type AsyncHandlers<S> = {
  [K in keyof S as string extends K ? never : K]: S[K] extends handleClientStreamingCall<infer Req, infer Res>
    ? (requests: AsyncIterable<Req>, call: CallInfo) => Promise<Res>
    : S[K] extends handleServerStreamingCall<infer Req, infer Res>
      ? (req: Req, call: CallInfo) => AsyncIterable<Res>
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
  handlers: Record<string, (req: any, call: CallInfo) => any>;
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
}

export interface RunningGrpcServer {
  port: number;
  health: HealthImplementation;
  shutdown(graceMs?: number): Promise<void>;
}

export const PROTO_ROOT = path.join(import.meta.dirname, '..', '..', '..', '..', 'proto');

function callInfo(call: any): CallInfo {
  const requestId = requestIdFrom(call.metadata.get(REQUEST_ID_HEADER)[0]);
  const deadline = call.getDeadline?.();
  const deadlineMs =
    deadline instanceof Date
      ? deadline.getTime() - Date.now()
      : typeof deadline === 'number' && isFinite(deadline)
        ? deadline - Date.now()
        : Infinity;
  return { requestId, deadlineMs };
}

/** A server-streaming handler: each yielded message written as the peer reads them. */
function wrapServerStream(name: string, method: string, fn: ServiceBinding['handlers'][string], log: Logger) {
  return (call: any) => {
    const info = callInfo(call);
    runWithContext({ requestId: info.requestId }, () => {
      void (async () => {
        try {
          for await (const msg of fn(call.request, info) as AsyncIterable<unknown>) {
            if (call.cancelled) return;
            if (!call.write(msg)) await new Promise((r) => call.once('drain', r));
          }
          call.end();
        } catch (err) {
          if (!(err instanceof HallmarkError))
            log.error({ err, rpc: `${name}/${method}` }, 'unhandled error in RPC');
          call.emit('error', toServiceError(err));
        }
      })();
    });
  };
}

function wrap(
  name: string,
  method: string,
  fn: ServiceBinding['handlers'][string],
  log: Logger,
  clientStream = false,
) {
  return (call: any, callback: (err: any, res?: any) => void) => {
    const info = callInfo(call);
    runWithContext({ requestId: info.requestId }, () => {
      (fn(clientStream ? call : call.request, info) as Promise<unknown>).then(
        (res) => callback(null, res),
        (err) => {
          if (!(err instanceof HallmarkError))
            log.error({ err, rpc: `${name}/${method}` }, 'unhandled error in RPC');
          callback(toServiceError(err));
        },
      );
    });
  };
}

export async function startGrpcServer(opts: GrpcServerOptions): Promise<RunningGrpcServer> {
  const server = new Server({
    // A bulk upload carries a CSV (≤ 10 MB) and a ZIP (≤ 100 MB) in one message.
    'grpc.max_receive_message_length': 128 * 1024 * 1024,
    // Nothing reads channelz; with it on, every call runs through its tracking handler.
    'grpc.enable_channelz': 0,
  });
  const statusMap: ServingStatusMap = { '': 'SERVING' };
  for (const svc of opts.services) {
    const impl: UntypedServiceImplementation = {};
    for (const [method, fn] of Object.entries(svc.handlers)) {
      const def = svc.definition[method];
      impl[method] = def?.responseStream
        ? wrapServerStream(opts.name, method, fn, opts.log)
        : wrap(opts.name, method, fn, opts.log, def?.requestStream === true);
    }
    server.addService(svc.definition, impl);
    const first = Object.values(svc.definition)[0];
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
