// One error for both response surfaces (spec › Errors). The versioned surface answers
// `{error:{type, code, message, param?, request_id, retry_after?, …}}`; the unversioned one
// `{success:false, error, code, param?, request_id, …}` without a `type`, so the type is
// taken from the API's error catalogue (`@hallmark/errors`, the list the server throws from,
// bundled into this package). Network failures become `connection_error`.
import { ERROR_CATALOGUE, isErrorCode, type ErrorType } from '@hallmark/errors';

/** The API's error types, and `connection_error` when no answer came. */
export type HallmarkErrorType = ErrorType | 'connection_error';

/** The type the catalogue gives a code (the unversioned surface names only the code). */
const typeOfCode = (code: string): ErrorType | undefined =>
  isErrorCode(code) ? ERROR_CATALOGUE[code].type : undefined;

function typeOfStatus(status: number): HallmarkErrorType {
  if (status === 401) return 'authentication_error';
  if (status === 403) return 'permission_error';
  if (status === 404 || status === 409) return 'resource_error';
  if (status === 422) return 'validation_error';
  if (status === 429) return 'rate_limit_error';
  if (status === 402) return 'payment_error';
  if (status >= 500) return 'api_error';
  return 'invalid_request_error';
}

export class HallmarkError extends Error {
  override readonly name = 'HallmarkError';
  /** The category (`rate_limit_error` …); `connection_error` when no answer came. */
  readonly type: HallmarkErrorType;
  /** For programs: `resource_not_found`, `voucher_expired` … (`connection_failed` offline). */
  readonly code: string;
  readonly param: string | undefined;
  /** The request's `req_…` id (body, else the `x-request-id` header). */
  readonly request_id: string | undefined;
  /** Seconds to wait before retrying (body `retry_after`, else the `Retry-After` header). */
  readonly retry_after: number | undefined;
  /** HTTP status; 0 when no answer came. */
  readonly status: number;
  /** The parsed error body as the API sent it (extra fields such as `existingJobId`). */
  readonly body: Record<string, unknown> | undefined;

  constructor(init: {
    type: HallmarkErrorType;
    code: string;
    message: string;
    status: number;
    param?: string;
    request_id?: string;
    retry_after?: number;
    body?: Record<string, unknown>;
    cause?: unknown;
  }) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.type = init.type;
    this.code = init.code;
    this.status = init.status;
    this.param = init.param;
    this.request_id = init.request_id;
    this.retry_after = init.retry_after;
    this.body = init.body;
  }

  /** Reads an error answer of either surface. Consumes the body. */
  static async fromResponse(res: Response): Promise<HallmarkError> {
    const text = await res.text().catch(() => '');
    let parsed: Record<string, unknown> | undefined;
    try {
      const json: unknown = text ? JSON.parse(text) : undefined;
      if (json && typeof json === 'object' && !Array.isArray(json)) parsed = json as Record<string, unknown>;
    } catch {
      parsed = undefined;
    }
    const envelope =
      parsed && typeof parsed.error === 'object' && parsed.error !== null
        ? (parsed.error as Record<string, unknown>)
        : undefined;
    const fields = envelope ?? parsed ?? {};
    const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);
    const code = str(fields.code) ?? (res.status === 409 ? 'resource_already_exists' : `http_${res.status}`);
    const headerRetry = Number(res.headers.get('retry-after'));
    const bodyRetry = Number(fields.retry_after);
    return new HallmarkError({
      type:
        (str(envelope?.type) as HallmarkErrorType | undefined) ??
        typeOfCode(code) ??
        typeOfStatus(res.status),
      code,
      message: str(envelope?.message) ?? str(parsed?.error) ?? str(parsed?.message) ?? `HTTP ${res.status}`,
      status: res.status,
      param: str(fields.param),
      request_id: str(fields.request_id) ?? res.headers.get('x-request-id') ?? undefined,
      retry_after:
        Number.isFinite(bodyRetry) && bodyRetry >= 0
          ? bodyRetry
          : Number.isFinite(headerRetry) && res.headers.has('retry-after')
            ? headerRetry
            : undefined,
      body: parsed,
    });
  }

  static connection(cause: unknown): HallmarkError {
    return new HallmarkError({
      type: 'connection_error',
      code: 'connection_failed',
      message: `Could not reach the API: ${cause instanceof Error ? cause.message : String(cause)}`,
      status: 0,
      cause,
    });
  }

  /** The line a person reads: `code: message (request req_…)`. */
  override toString(): string {
    return `${this.code}: ${this.message}${this.request_id ? ` (request ${this.request_id})` : ''}`;
  }
}
