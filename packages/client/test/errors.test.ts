// The client reads an error's type from the same catalogue the server throws from
// (@hallmark/errors), so the two cannot drift: the unversioned surface names only the code.
import { describe, expect, it } from '@jest/globals';
import { ERROR_CATALOGUE } from '@hallmark/errors';
import { HallmarkError } from '../src/errors.js';

const unversioned = (status: number, code: string) =>
  new Response(JSON.stringify({ success: false, error: 'refused', code, request_id: 'req_1' }), {
    status,
    headers: { 'content-type': 'application/json' },
  });

describe('HallmarkError from an answer', () => {
  it("takes the unversioned surface's type from the server's catalogue, for every code", async () => {
    for (const [code, entry] of Object.entries(ERROR_CATALOGUE)) {
      const err = await HallmarkError.fromResponse(unversioned(entry.http, code));
      expect([code, err.type, err.status]).toEqual([code, entry.type, entry.http]);
    }
    // 422 alone would say validation_error; the code says what it is.
    const expired = await HallmarkError.fromResponse(unversioned(422, 'voucher_expired'));
    expect(expired).toMatchObject({
      type: 'invalid_request_error',
      code: 'voucher_expired',
      request_id: 'req_1',
    });
  });

  it('an unknown code falls back to the type of its HTTP status', async () => {
    const err = await HallmarkError.fromResponse(unversioned(429, 'slow_down'));
    expect(err).toMatchObject({ type: 'rate_limit_error', code: 'slow_down', status: 429 });
  });
});
