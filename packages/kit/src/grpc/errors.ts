// How a HallmarkError crosses gRPC: the status code says the broad class, metadata
// carries the exact domain code, param, public message and extras. The receiving side
// rebuilds the same HallmarkError, never guessing from the gRPC status alone.
import { Metadata, status as GrpcStatus, type ServiceError } from '@grpc/grpc-js';
import { HallmarkError, isErrorCode } from '../errors.js';

const CODE = 'hallmark-error-code';
const PARAM = 'hallmark-error-param';
const MESSAGE = 'hallmark-error-message';
const EXTRAS = 'hallmark-error-extras';

/**
 * A failure to reach a dependency (the database refusing or dropping connections, a refused
 * or reset socket), not a bug: the caller gets `service_unavailable` (503, retryable) rather
 * than an internal error. SQLSTATE class 08 (connection exception), 57P01–57P03 (shutdown,
 * cannot connect now), 53300 (too many connections).
 */
export function isDependencyFailure(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown } | null;
  const code = typeof e?.code === 'string' ? e.code : '';
  if (/^08/.test(code) || ['57P01', '57P02', '57P03', '53300'].includes(code)) return true;
  if (['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH'].includes(code)) return true;
  const message = typeof e?.message === 'string' ? e.message : '';
  return /not currently accepting connections|Connection terminated|timeout exceeded when trying to connect/i.test(
    message,
  );
}

export function toServiceError(err: unknown): Partial<ServiceError> {
  const e =
    err instanceof HallmarkError
      ? err
      : new HallmarkError(isDependencyFailure(err) ? 'service_unavailable' : 'internal_error', {
          cause: err,
        });
  const md = new Metadata();
  md.set(CODE, e.code);
  if (e.param) md.set(PARAM, e.param);
  md.set(MESSAGE, encodeURIComponent(e.message));
  if (Object.keys(e.extras).length > 0) md.set(EXTRAS, encodeURIComponent(JSON.stringify(e.extras)));
  return { code: e.grpcStatus, details: e.code, metadata: md };
}

/** Rebuilds the HallmarkError a service threw; transport failures become api errors. */
export function fromServiceError(err: ServiceError): HallmarkError {
  const code = err.metadata?.get(CODE)[0];
  if (typeof code === 'string' && isErrorCode(code)) {
    const param = err.metadata.get(PARAM)[0];
    const message = err.metadata.get(MESSAGE)[0];
    const extras = err.metadata.get(EXTRAS)[0];
    return new HallmarkError(code, {
      param: typeof param === 'string' ? param : undefined,
      message: typeof message === 'string' ? decodeURIComponent(message) : undefined,
      extras: typeof extras === 'string' ? JSON.parse(decodeURIComponent(extras)) : undefined,
    });
  }
  switch (err.code) {
    case GrpcStatus.UNAVAILABLE:
      return new HallmarkError('service_unavailable', { cause: err });
    case GrpcStatus.DEADLINE_EXCEEDED:
      return new HallmarkError('upstream_timeout', { cause: err });
    default:
      return new HallmarkError('internal_error', { cause: err });
  }
}
