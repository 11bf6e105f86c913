// The errors services throw. The catalogue of codes (type, HTTP status, public message) is
// `@hallmark/errors`, shared with the client; this adds each code's gRPC status and the
// `HallmarkError` services throw. It travels as a gRPC status with the code in metadata (see
// grpc/errors.ts); the gateway renders it in one place.
//
// Pure (no I/O, no gRPC runtime): domain code imports it as `@hallmark/kit/errors`. The gRPC
// status numbers are the protocol's own (grpc/grpc doc/statuscodes.md); grpc-js's `status`
// enum has the same values, checked by test/errors.test.ts.
import {
  ERROR_CATALOGUE,
  type ErrorCode,
  type ErrorEntry,
  type ErrorExtras,
  type ErrorType,
} from '@hallmark/errors';

export {
  ERROR_CATALOGUE,
  isErrorCode,
  type ErrorCode,
  type ErrorEntry,
  type ErrorExtras,
  type ErrorType,
} from '@hallmark/errors';

/** gRPC status codes used by the catalogue (the protocol's numbers). */
export const GrpcStatus = {
  UNKNOWN: 2,
  INVALID_ARGUMENT: 3,
  DEADLINE_EXCEEDED: 4,
  NOT_FOUND: 5,
  ALREADY_EXISTS: 6,
  PERMISSION_DENIED: 7,
  RESOURCE_EXHAUSTED: 8,
  FAILED_PRECONDITION: 9,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAVAILABLE: 14,
  UNAUTHENTICATED: 16,
} as const;
export type GrpcStatus = (typeof GrpcStatus)[keyof typeof GrpcStatus];

const HTTP_TO_GRPC: Record<number, GrpcStatus> = {
  400: GrpcStatus.INVALID_ARGUMENT,
  401: GrpcStatus.UNAUTHENTICATED,
  402: GrpcStatus.FAILED_PRECONDITION,
  403: GrpcStatus.PERMISSION_DENIED,
  404: GrpcStatus.NOT_FOUND,
  405: GrpcStatus.UNIMPLEMENTED,
  409: GrpcStatus.ALREADY_EXISTS,
  413: GrpcStatus.INVALID_ARGUMENT,
  415: GrpcStatus.INVALID_ARGUMENT,
  422: GrpcStatus.FAILED_PRECONDITION,
  429: GrpcStatus.RESOURCE_EXHAUSTED,
  500: GrpcStatus.INTERNAL,
  502: GrpcStatus.UNAVAILABLE,
  503: GrpcStatus.UNAVAILABLE,
  504: GrpcStatus.DEADLINE_EXCEEDED,
};

export class HallmarkError extends Error {
  readonly code: ErrorCode;
  readonly param?: string;
  readonly extras: ErrorExtras;

  constructor(
    code: ErrorCode,
    opts: { message?: string; param?: string; extras?: ErrorExtras; cause?: unknown } = {},
  ) {
    super(opts.message ?? ERROR_CATALOGUE[code].message, { cause: opts.cause });
    this.name = 'HallmarkError';
    this.code = code;
    this.param = opts.param;
    this.extras = opts.extras ?? {};
  }

  get type(): ErrorType {
    return ERROR_CATALOGUE[this.code].type;
  }
  get httpStatus(): number {
    return ERROR_CATALOGUE[this.code].http;
  }
  get grpcStatus(): GrpcStatus {
    return grpcStatusOf(this.code);
  }
  get retryable(): boolean {
    const e: ErrorEntry = ERROR_CATALOGUE[this.code];
    return e.retryable ?? false;
  }
}

export function grpcStatusOf(code: ErrorCode): GrpcStatus {
  return HTTP_TO_GRPC[ERROR_CATALOGUE[code].http] ?? GrpcStatus.UNKNOWN;
}

/** Shorthands for the errors thrown most. */
export const notFound = (resource: string, id?: string) =>
  new HallmarkError('resource_not_found', {
    message: `No such ${resource}${id ? `: '${id}'` : ''}.`,
    extras: { resource, ...(id ? { resource_id: id } : {}) },
  });

/**
 * The 404 of an object that exists in the other mode (Stripe's wording): a test key asking
 * for a live object, or the reverse, learns why it cannot see it.
 */
export const notFoundInOtherMode = (resource: string, id: string, requestLivemode: boolean) =>
  new HallmarkError('resource_not_found', {
    message:
      `No such ${resource}: '${id}'; a similar object exists in ${requestLivemode ? 'test' : 'live'} mode, ` +
      `but a ${requestLivemode ? 'live' : 'test'} mode key was used to make this request.`,
    extras: { resource, resource_id: id },
  });

export const invalidParam = (param: string, message: string) =>
  new HallmarkError('parameter_invalid', { param, message });

export const missingParam = (param: string) =>
  new HallmarkError('parameter_missing', { param, message: `Missing required parameter: ${param}.` });
