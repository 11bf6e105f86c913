import { describe, expect, it } from '@jest/globals';
import { ERROR_CATALOGUE, HallmarkError, type ErrorCode } from '@hallmark/kit';
import { renderError, surfaceOf } from '../src/surface.js';

describe('response surfaces', () => {
  it('tells the versioned surface from the unversioned one by path', () => {
    expect(surfaceOf('/api/v1/vouchers')).toBe('v1');
    expect(surfaceOf('/api/v1')).toBe('v1');
    expect(surfaceOf('/api/bulk-mint')).toBe('api');
    expect(surfaceOf('/api/v10/x')).toBe('api');
    expect(surfaceOf('/verify/cert_x')).toBe('v1');
  });

  it('renders every catalogue code in the v1 envelope with type, code, message and request_id', () => {
    for (const code of Object.keys(ERROR_CATALOGUE) as ErrorCode[]) {
      const body = renderError(new HallmarkError(code, { param: 'p' }), 'v1', 'req_x') as {
        error: Record<string, unknown>;
      };
      expect(body.error).toMatchObject({
        type: ERROR_CATALOGUE[code].type,
        code,
        param: 'p',
        request_id: 'req_x',
      });
      expect(typeof body.error.message).toBe('string');
    }
  });

  it('renders every catalogue code on the unversioned surface with success: false', () => {
    for (const code of Object.keys(ERROR_CATALOGUE) as ErrorCode[]) {
      const body = renderError(new HallmarkError(code), 'api', 'req_y');
      expect(body).toMatchObject({ success: false, code, request_id: 'req_y' });
      expect(typeof body.error).toBe('string');
    }
  });

  it('carries the type-specific extras (retry_after, required_permission, errors)', () => {
    const body = renderError(
      new HallmarkError('insufficient_permissions', { extras: { required_permission: 'transactions.read' } }),
      'v1',
      'req_z',
    ) as { error: Record<string, unknown> };
    expect(body.error.required_permission).toBe('transactions.read');
    const limited = renderError(
      new HallmarkError('rate_limit_exceeded', { extras: { retry_after: 7 } }),
      'api',
      'r',
    );
    expect(limited.retry_after).toBe(7);
  });

  it('never shows an internal message on a 5xx', () => {
    const err = new HallmarkError('internal_error', { message: 'relation "vouchers" does not exist' });
    const body = renderError(err, 'v1', 'req_q') as { error: { message: string } };
    expect(body.error.message).toBe(ERROR_CATALOGUE.internal_error.message);
  });
});
