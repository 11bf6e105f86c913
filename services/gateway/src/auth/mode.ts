// Live and test mode (architecture.md › Test mode; docs/security.md › Test mode). Test-mode
// data is invisible to live callers and the reverse. An API key carries its mode (`pk_test_`
// keys are test mode, every other key live). A user session works in live mode unless the
// request says `Hallmark-Mode: test` — the dashboard's test toggle, and how a recipient claims
// a test-mode certificate voucher. With a key, the header may only repeat the key's mode.
import { HallmarkError } from '@hallmark/kit';
import type { FastifyRequest } from 'fastify';
import type { AuthInfo } from './types.js';

export const MODE_HEADER = 'hallmark-mode';
type Mode = 'live' | 'test';

/** The mode the request asks for, or null when it does not say. */
export function requestedMode(request: FastifyRequest): Mode | null {
  const raw = request.headers[MODE_HEADER];
  if (raw === undefined) return null;
  const value = (Array.isArray(raw) ? raw.join(',') : raw).trim().toLowerCase();
  if (value === 'live' || value === 'test') return value;
  throw new HallmarkError('parameter_invalid', {
    param: 'Hallmark-Mode',
    message: 'The Hallmark-Mode header takes `live` or `test`.',
  });
}

/** The request's credential in the asked mode (a session switches; a key must match). */
export function withMode(info: AuthInfo, mode: Mode | null): AuthInfo {
  if (mode === null) return info;
  const livemode = mode === 'live';
  if (info.principal.livemode === livemode) return info;
  if (info.kind === 'api_key') {
    throw new HallmarkError('parameter_invalid', {
      param: 'Hallmark-Mode',
      message: `This key works in ${info.principal.livemode ? 'live' : 'test'} mode; a key's mode cannot be changed by a header.`,
    });
  }
  return { ...info, principal: { ...info.principal, livemode } };
}
