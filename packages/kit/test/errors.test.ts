import { describe, expect, it } from '@jest/globals';
import { Metadata, status, type ServiceError } from '@grpc/grpc-js';
import {
  GrpcStatus,
  ERROR_CATALOGUE,
  HallmarkError,
  fromServiceError,
  grpcStatusOf,
  toServiceError,
  type ErrorCode,
} from '../src/index.js';

// Every type/code pair of the spec's Errors part, plus the voucher codes.
const SPEC: Record<string, string[]> = {
  authentication_error: ['invalid_api_key', 'missing_api_key', 'expired_api_key', 'invalid_token'],
  invalid_request_error: [
    'parameter_missing',
    'parameter_invalid',
    'parameter_unknown',
    'malformed_json',
    'invalid_content_type',
  ],
  rate_limit_error: ['rate_limit_exceeded', 'concurrent_limit_exceeded'],
  resource_error: ['resource_not_found', 'resource_already_exists', 'resource_locked', 'resource_deleted'],
  permission_error: ['insufficient_permissions'],
  validation_error: ['validation_failed'],
  payment_error: ['card_declined', 'insufficient_funds', 'payment_method_invalid', 'processing_error'],
  api_error: ['internal_error'],
};
const VOUCHER_CODES = [
  'voucher_not_found',
  'voucher_expired',
  'voucher_max_uses_reached',
  'voucher_inactive',
  'voucher_code_exists',
];
const SPEC_STATUSES = new Set([400, 401, 402, 403, 404, 405, 409, 422, 429, 500, 502, 503, 504]);

describe('error catalogue', () => {
  it('uses the gRPC protocol status numbers without loading grpc-js (pure for domain code)', () => {
    for (const [name, value] of Object.entries(GrpcStatus)) {
      expect([name, value]).toEqual([name, status[name as keyof typeof status]]);
    }
  });

  it('maps every spec type/code pair with its type', () => {
    for (const [type, codes] of Object.entries(SPEC)) {
      for (const code of codes) {
        expect(ERROR_CATALOGUE).toHaveProperty(code);
        expect(ERROR_CATALOGUE[code as ErrorCode].type).toBe(type);
      }
    }
  });

  it('maps every voucher code', () => {
    for (const code of VOUCHER_CODES) expect(ERROR_CATALOGUE).toHaveProperty(code);
    expect(ERROR_CATALOGUE.voucher_not_found.http).toBe(404);
    expect(ERROR_CATALOGUE.voucher_code_exists.http).toBe(409);
  });

  it('gives every code an HTTP status from the spec table, a gRPC status and a public message', () => {
    for (const [code, entry] of Object.entries(ERROR_CATALOGUE)) {
      expect(SPEC_STATUSES.has(entry.http)).toBe(true);
      expect(grpcStatusOf(code as ErrorCode)).not.toBe(status.UNKNOWN);
      expect(entry.message.length).toBeGreaterThan(5);
    }
  });

  it('authentication errors are 401, permission 403, rate limits 429', () => {
    for (const code of SPEC.authentication_error!) expect(ERROR_CATALOGUE[code as ErrorCode].http).toBe(401);
    expect(ERROR_CATALOGUE.insufficient_permissions.http).toBe(403);
    expect(ERROR_CATALOGUE.rate_limit_exceeded.http).toBe(429);
  });
});

describe('errors across gRPC', () => {
  it('arrive as the same code, param, message and extras', () => {
    const sent = new HallmarkError('insufficient_permissions', {
      param: 'scope',
      message: 'Needs transactions.read — 100%',
      extras: { required_permission: 'transactions.read' },
    });
    const wire = toServiceError(sent) as ServiceError;
    const got = fromServiceError(wire);
    expect(wire.code).toBe(status.PERMISSION_DENIED);
    expect(got.code).toBe('insufficient_permissions');
    expect(got.param).toBe('scope');
    expect(got.message).toBe('Needs transactions.read — 100%');
    expect(got.extras.required_permission).toBe('transactions.read');
  });

  it('turn unknown throwables into internal_error without leaking their message', () => {
    const wire = toServiceError(new Error('relation "api_keys" does not exist')) as ServiceError;
    const got = fromServiceError(wire);
    expect(got.code).toBe('internal_error');
    expect(got.message).not.toMatch(/relation/);
  });

  it('turn a write refused by a primary still being promoted (SQLSTATE 25006) into a retryable 503, not a 500', () => {
    // What a Patroni failover shows for a moment: HAProxy routes to the new primary while it
    // still finishes leaving recovery.
    const readOnly = Object.assign(new Error('cannot execute INSERT in a read-only transaction'), {
      code: '25006',
    });
    const got = fromServiceError(toServiceError(readOnly) as ServiceError);
    expect(got.code).toBe('service_unavailable');
    expect(got.retryable).toBe(true);
  });

  it('turn transport failures without a domain code into retryable api errors', () => {
    const unavailable = { code: status.UNAVAILABLE, metadata: new Metadata(), details: 'x' } as ServiceError;
    expect(fromServiceError(unavailable).code).toBe('service_unavailable');
    expect(fromServiceError(unavailable).retryable).toBe(true);
  });
});
