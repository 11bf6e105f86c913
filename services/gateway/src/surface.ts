// The two response styles of the spec: `/api/v1/…` answers errors in the envelope
// `{error:{type, code, message, param?, request_id}}`; the unversioned `/api/…` answers
// `{success:false, error, code, request_id}`. Everything else (pages, probes) uses the
// envelope.
import { ERROR_CATALOGUE, HallmarkError } from '@hallmark/kit';

export type Surface = 'v1' | 'api';

export function surfaceOf(url: string): Surface {
  return url.startsWith('/api/') && !url.startsWith('/api/v1/') && url !== '/api/v1' ? 'api' : 'v1';
}

export function renderError(
  err: HallmarkError,
  surface: Surface,
  requestId: string,
): Record<string, unknown> {
  // A 5xx never shows anything beyond the catalogue's public message.
  const message = err.httpStatus >= 500 ? ERROR_CATALOGUE[err.code].message : err.message;
  if (surface === 'api') {
    return {
      success: false,
      error: message,
      code: err.code,
      ...(err.param ? { param: err.param } : {}),
      ...err.extras,
      request_id: requestId,
    };
  }
  return {
    error: {
      type: err.type,
      code: err.code,
      message,
      ...(err.param ? { param: err.param } : {}),
      ...err.extras,
      request_id: requestId,
    },
  };
}
