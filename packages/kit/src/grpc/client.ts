// gRPC client helper: promise methods with a deadline on every call, the request id in
// metadata, errors rebuilt as HallmarkError, and retries only for calls the caller marks
// idempotent (reads) and only on transport failures.
import { credentials, Metadata, status as GrpcStatus, type Client, type ServiceError } from '@grpc/grpc-js';
import { currentRequestId, REQUEST_ID_HEADER } from '../context.js';
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

export interface GrpcClient<C> {
  api: AsyncClient<C>;
  raw: C;
  close(): void;
}

export function createGrpcClient<C extends Client>(
  Ctor: ClientCtor<C>,
  address: string,
  defaults: { deadlineMs?: number; retries?: number } = {},
): GrpcClient<C> {
  const raw = new Ctor(address, credentials.createInsecure(), {
    'grpc.keepalive_time_ms': 30_000,
    'grpc.max_receive_message_length': 64 * 1024 * 1024,
  });
  const deadlineDefault = defaults.deadlineMs ?? 10_000;
  const retries = defaults.retries ?? 2;

  const callOnce = (method: string, req: unknown, deadlineMs: number) =>
    new Promise<unknown>((resolve, reject) => {
      const md = new Metadata();
      const requestId = currentRequestId();
      if (requestId) md.set(REQUEST_ID_HEADER, requestId);
      const fn = (raw as any)[method] as (...a: unknown[]) => void;
      fn.call(
        raw,
        req,
        md,
        { deadline: Date.now() + deadlineMs },
        (err: ServiceError | null, res: unknown) => (err ? reject(err) : resolve(res)),
      );
    });

  const api = new Proxy({} as AsyncClient<C>, {
    get(_t, method: string) {
      return async (req: unknown, opts: CallOptions = {}) => {
        const deadlineMs = opts.deadlineMs ?? deadlineDefault;
        for (let attempt = 0; ; attempt++) {
          try {
            return await callOnce(method, req, deadlineMs);
          } catch (err) {
            const se = err as ServiceError;
            if (
              opts.idempotent &&
              attempt < retries &&
              RETRYABLE.has(se.code) &&
              !se.metadata?.get('hallmark-error-code').length
            ) {
              await new Promise((r) => setTimeout(r, 50 * 2 ** attempt));
              continue;
            }
            throw fromServiceError(se);
          }
        }
      };
    },
  });
  return { api, raw, close: () => raw.close() };
}
