// How a HallmarkError crosses gRPC: the status code says the broad class, metadata
// carries the exact domain code, param, public message and extras. The receiving side
// rebuilds the same HallmarkError, never guessing from the gRPC status alone.
//
// The param, message and extras hold client text (a field name is the client's JSON key), and
// grpc-js throws on any text metadata value outside printable ASCII, so a key `é` once made
// a handler throw outside its request and the process exit. They travel as UTF-8 JSON in one
// binary (`-bin`) header, which takes any bytes: nothing a client sends can make writing an
// error throw.
import { Metadata, status as GrpcStatus, type ServiceError } from '@grpc/grpc-js';
import { HallmarkError, isErrorCode } from '../errors.js';

const CODE = 'hallmark-error-code';
const DETAIL = 'hallmark-error-bin';
// Read only, from a peer still on the release before the binary header (a rolling upgrade).
const PARAM = 'hallmark-error-param';
const MESSAGE = 'hallmark-error-message';
const EXTRAS = 'hallmark-error-extras';

interface Detail {
  param?: string;
  message: string;
  extras?: Record<string, unknown>;
}

/**
 * A failure to reach a dependency (the database refusing or dropping connections, a refused
 * or reset socket), not a bug: the caller gets `service_unavailable` (503, retryable) rather
 * than an internal error. SQLSTATE class 08 (connection exception), 57P01–57P03 (shutdown,
 * cannot connect now), 53300 (too many connections), 25006 (read-only transaction: in a
 * failover the proxy can route to the new primary a moment before its promotion completes).
 */
export function isDependencyFailure(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown } | null;
  const code = typeof e?.code === 'string' ? e.code : '';
  if (/^08/.test(code) || ['57P01', '57P02', '57P03', '53300', '25006'].includes(code)) return true;
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
  md.set(CODE, e.code); // the catalogue's own ASCII code, never client text
  const detail: Detail = { param: e.param, message: e.message };
  if (Object.keys(e.extras).length > 0) detail.extras = e.extras;
  md.set(DETAIL, Buffer.from(JSON.stringify(detail), 'utf8'));
  return { code: e.grpcStatus, details: e.code, metadata: md };
}

/** The param, message and extras of a peer's error: the binary header, else the old text ones. */
function detailOf(md: Metadata): Detail | undefined {
  const bin = md.get(DETAIL)[0];
  if (Buffer.isBuffer(bin)) {
    try {
      const d = JSON.parse(bin.toString('utf8')) as Partial<Detail>;
      return {
        param: typeof d.param === 'string' ? d.param : undefined,
        message: typeof d.message === 'string' ? d.message : '',
        extras: d.extras && typeof d.extras === 'object' ? d.extras : undefined,
      };
    } catch {
      return undefined;
    }
  }
  const param = md.get(PARAM)[0];
  const message = md.get(MESSAGE)[0];
  const extras = md.get(EXTRAS)[0];
  try {
    return {
      param: typeof param === 'string' ? param : undefined,
      message: typeof message === 'string' ? decodeURIComponent(message) : '',
      extras: typeof extras === 'string' ? JSON.parse(decodeURIComponent(extras)) : undefined,
    };
  } catch {
    return undefined;
  }
}

/** Rebuilds the HallmarkError a service threw; transport failures become api errors. */
export function fromServiceError(err: ServiceError): HallmarkError {
  const code = err.metadata?.get(CODE)[0];
  if (typeof code === 'string' && isErrorCode(code)) {
    const detail = detailOf(err.metadata);
    return new HallmarkError(code, {
      param: detail?.param,
      message: detail?.message || undefined,
      extras: detail?.extras,
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
