// pino JSON logs. Secrets never reach a log line: the redact list covers every header
// and field that can carry a credential, and callers log ids, never secrets.
import { pino, type Logger } from 'pino';
import { currentRequestId } from './context.js';

export type { Logger };

export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  'req.headers.cookie',
  'headers.authorization',
  'headers["x-api-key"]',
  '*.secret',
  '*.key',
  '*.token',
  '*.password',
  '*.apiKey',
  '*.accessToken',
  '*.claimToken',
  'secret',
  'key',
  'token',
  'password',
];

const REQUEST_BINDING = '"request_id":';

/** True when the logger's own bindings carry a request id (pino keeps them serialised). */
function boundToRequest(logger: Logger): boolean {
  const bindings = (logger as unknown as Record<symbol, unknown>)[pino.symbols.chindingsSym];
  return typeof bindings === 'string' && bindings.includes(REQUEST_BINDING);
}

export function createLogger(service: string, level: string = process.env.LOG_LEVEL ?? 'info'): Logger {
  return pino({
    name: service,
    level,
    base: { service },
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    timestamp: pino.stdTimeFunctions.isoTime,
    // The request id is read from async context, so no handler has to pass it along; a
    // logger bound to its request already (the gateway's per-request child) names it once.
    mixin(_object, _level, logger) {
      if (boundToRequest(logger)) return {};
      const requestId = currentRequestId();
      return requestId ? { request_id: requestId } : {};
    },
  });
}
