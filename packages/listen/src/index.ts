// `listen()`: webhooks on a laptop. Opens the gateway's listen stream (GET /api/v1/listen,
// Server-Sent Events), and forwards each event to a local URL exactly as Hallmark would POST
// it to an endpoint — the same body bytes and the same signature headers, signed with the
// session's secret — reporting the local answer. No CLI in here: `hallmark listen` wraps it,
// and a test or a script can use it as is.
import { readSse } from './sse.js';

export { readSse, type SseFrame } from './sse.js';

export interface ListenSession {
  /** lsn_… */
  id: string;
  /** whsec_…: verify forwarded events with this. */
  secret: string;
  livemode: boolean;
  /** Empty: every type. */
  events: string[];
  created_at: string;
}

export interface ListenedEvent {
  /** The delivery id (dlv_…). */
  id: string;
  event_id: string;
  type: string;
  attempt: number;
  /** The exact headers an endpoint or subscription would get (lower-case names). */
  headers: Record<string, string>;
  /** The exact body an endpoint or subscription would get. */
  body: string;
}

export interface ForwardResult {
  /** The local receiver's HTTP status; null when it did not answer. */
  status: number | null;
  latencyMs: number;
  /** Why there was no answer (refused, timed out). */
  error?: string;
  /** The start of the local answer's body (≤ 2,000 characters). */
  body?: string;
}

export interface ListenOptions {
  /** The gateway, e.g. http://localhost:8080. */
  baseUrl: string;
  /** An API key (admin.*) or a session token. */
  credential: string;
  /** Event types to hear; absent or empty: every type. */
  events?: string[];
  /** `test` (default) or `live`. A key listens in its own mode; omit it to use that. */
  mode?: 'test' | 'live';
  /** A local URL each event is POSTed to, with its real headers. */
  forwardTo?: string;
  /** Per forward (default 30 s, as a real delivery). */
  forwardTimeoutMs?: number;
  onSession?: (session: ListenSession) => void;
  /** Each event, with the local answer when forwarding. */
  onEvent?: (event: ListenedEvent, forwarded?: ForwardResult) => void | Promise<void>;
  /** Aborting ends the session (the server records it as ended). */
  signal?: AbortSignal;
}

/** An error answer of the gateway, as its envelope says it. */
export class ListenError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly code?: string,
    readonly requestId?: string,
  ) {
    super(message);
    this.name = 'ListenError';
  }
}

export interface Listener {
  /** Resolves with the session once the stream is open; rejects with a ListenError if refused. */
  session: Promise<ListenSession>;
  /** Resolves when the stream ends (closed by `close()`, the signal, or the server). */
  done: Promise<void>;
  close(): void;
}

/** POSTs one event to the local receiver as Hallmark would; never throws. */
export async function forward(url: string, e: ListenedEvent, timeoutMs = 30_000): Promise<ForwardResult> {
  const started = performance.now();
  const latency = () => Math.round(performance.now() - started);
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers: e.headers,
      body: e.body,
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await res.text().catch(() => '');
    return { status: res.status, latencyMs: latency(), body: text.slice(0, 2000) };
  } catch (err) {
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    const error = cause?.code ?? cause?.message ?? (err as Error).message;
    return { status: null, latencyMs: latency(), error };
  }
}

export function listen(opts: ListenOptions): Listener {
  const abort = new AbortController();
  const onAbort = () => abort.abort();
  opts.signal?.addEventListener('abort', onAbort);
  if (opts.signal?.aborted) abort.abort();
  let resolveSession!: (s: ListenSession) => void;
  let rejectSession!: (e: unknown) => void;
  const session = new Promise<ListenSession>((res, rej) => {
    resolveSession = res;
    rejectSession = rej;
  });
  session.catch(() => undefined);

  const run = async () => {
    const url = new URL('/api/v1/listen', opts.baseUrl);
    if (opts.events?.length) url.searchParams.set('events', opts.events.join(','));
    if (opts.mode) url.searchParams.set('mode', opts.mode);
    const res = await fetch(url, {
      headers: { authorization: `Bearer ${opts.credential}`, accept: 'text/event-stream' },
      signal: abort.signal,
    });
    if (!res.ok || !res.body) {
      const text = await res.text().catch(() => '');
      let body: { error?: { code?: string; message?: string; request_id?: string } } = {};
      try {
        body = JSON.parse(text);
      } catch {
        // not the envelope
      }
      throw new ListenError(
        body.error?.message ?? `listen refused: HTTP ${res.status}`,
        res.status,
        body.error?.code,
        body.error?.request_id ?? res.headers.get('x-request-id') ?? undefined,
      );
    }
    for await (const frame of readSse(res.body as AsyncIterable<Uint8Array>)) {
      if (frame.event === 'session') {
        const s = JSON.parse(frame.data) as ListenSession;
        resolveSession(s);
        opts.onSession?.(s);
        continue;
      }
      if (frame.event === 'error') {
        const e = JSON.parse(frame.data) as { code?: string; request_id?: string };
        throw new ListenError('the listen stream broke', 200, e.code, e.request_id);
      }
      const e = JSON.parse(frame.data) as ListenedEvent;
      const result = opts.forwardTo ? await forward(opts.forwardTo, e, opts.forwardTimeoutMs) : undefined;
      await opts.onEvent?.(e, result);
    }
  };

  const done = run()
    .catch((err) => {
      if (abort.signal.aborted) return;
      rejectSession(err);
      throw err;
    })
    .finally(() => {
      opts.signal?.removeEventListener('abort', onAbort);
      rejectSession(new ListenError('the listen stream ended before its session', 0));
    });
  // A caller may only await `session`: a refusal then is not also an unhandled rejection.
  done.catch(() => undefined);
  return { session, done, close: () => abort.abort() };
}
