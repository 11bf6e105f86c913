// A 429 tells people how long to wait: the CLI printed "Too many requests. Retry later." for
// a bulk retry budget that reopened in 59 minutes.
import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { HallmarkError } from '@hallmark/client';
import { reportError, waitOf } from '../src/context.js';

afterEach(() => {
  jest.restoreAllMocks();
});

const AT_1306 = Date.parse('2026-01-01T13:06:00Z');

describe('a rate-limited command', () => {
  it('prints the wait from Retry-After in minutes and the UTC time it ends, and exits 5', async () => {
    const written: string[] = [];
    jest.spyOn(process.stderr, 'write').mockImplementation((chunk) => (written.push(String(chunk)), true));
    jest.spyOn(Date, 'now').mockReturnValue(AT_1306);
    const err = await HallmarkError.fromResponse(
      new Response(
        JSON.stringify({
          success: false,
          error: 'Too many requests. Retry later.',
          code: 'rate_limit_exceeded',
        }),
        {
          status: 429,
          headers: { 'retry-after': '3540', 'content-type': 'application/json' },
        },
      ),
    );
    expect(reportError(err, false)).toBe(5);
    expect(written.join('')).toContain('Error: Too many requests: retry in 59 min (at 14:05 UTC).');
  });

  it('says seconds, minutes or hours as the wait needs', () => {
    expect(waitOf(12, AT_1306)).toBe('12 s (at 13:06:12 UTC)');
    expect(waitOf(61, AT_1306)).toBe('2 min (at 13:07 UTC)');
    expect(waitOf(3600, AT_1306)).toBe('1 h (at 14:06 UTC)');
    expect(waitOf(5400, AT_1306)).toBe('1 h 30 min (at 14:36 UTC)');
  });
});
