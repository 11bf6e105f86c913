// One HTTP POST of a webhook: through the guarded agent (every connection checked against
// the outbound guard, TLS verified), a 30 s budget for the whole exchange, redirects not
// followed (a 3xx is a failure), the answer's body discarded. Never throws: every way of
// failing becomes an Outcome the worker records.
import { OutboundRefusedError } from '@hallmark/kit';
import { performance } from 'node:perf_hooks';
import { request, type Dispatcher } from 'undici';
import { isSuccess } from './domain/schedule.js';
import type { Outcome } from './deliveries-store.js';

export const WEBHOOK_TIMEOUT_MS = 30_000;
export const USER_AGENT = 'Hallmark-Webhooks/1.0';

export class WebhookSender {
  constructor(
    private readonly dispatcher: Dispatcher,
    private readonly timeoutMs = WEBHOOK_TIMEOUT_MS,
  ) {}

  async post(url: string, body: string, headers: Record<string, string>): Promise<Outcome> {
    const started = performance.now();
    const latency = () => performance.now() - started;
    try {
      const res = await request(url, {
        method: 'POST',
        dispatcher: this.dispatcher,
        body,
        headers: { 'content-type': 'application/json', 'user-agent': USER_AGENT, ...headers },
        signal: AbortSignal.timeout(this.timeoutMs),
        headersTimeout: this.timeoutMs,
        bodyTimeout: this.timeoutMs,
      });
      await res.body.dump({ limit: 64 * 1024 }).catch(() => undefined);
      const code = res.statusCode;
      const error = isSuccess(code)
        ? null
        : code >= 300 && code < 400
          ? `HTTP ${code}: redirects are not followed`
          : `HTTP ${code}`;
      return { statusCode: code, latencyMs: latency(), error };
    } catch (err) {
      return { statusCode: null, latencyMs: latency(), error: describe(err, this.timeoutMs) };
    }
  }
}

function describe(err: unknown, timeoutMs: number): string {
  if (err instanceof OutboundRefusedError) return `refused by the outbound guard: ${err.reason}`;
  const e = err as NodeJS.ErrnoException & { cause?: unknown };
  if (
    e?.name === 'TimeoutError' ||
    e?.code === 'UND_ERR_HEADERS_TIMEOUT' ||
    e?.code === 'UND_ERR_BODY_TIMEOUT'
  )
    return `timed out after ${timeoutMs} ms`;
  if (e?.cause instanceof OutboundRefusedError) return `refused by the outbound guard: ${e.cause.reason}`;
  return `${e?.code ?? e?.name ?? 'Error'}: ${e?.message ?? String(err)}`;
}
