// Fetching a brand's domain proof (`https://<website origin>/.well-known/hallmark-issuer.json`).
// The website is the customer's choice, so the connection goes through the kit's outbound
// guard (no private, loopback or metadata addresses unless HALLMARK_OUTBOUND_ALLOW_HOSTS
// exempts them; TLS always verified), https only, no redirects (the proof must be served by
// the named host itself), one time budget for the whole exchange and a byte cap on the body.
// Never throws: every failure is an unverified verdict with a reason a person can read. A
// connection that fails, however (refused, reset, TLS, timeout, DNS), is the one reason
// "could not be fetched": the website is the customer's choice, host and port, and telling
// those apart would map the ports of an allowed host. The cause goes to the log.
import { createGuardedAgent, OutboundGuard, OutboundRefusedError, type Logger } from '@hallmark/kit';
import { request } from 'undici';
import { MAX_PROOF_BYTES, PROOF_PATH, proofUrl, proofVerdict } from './domain.js';

export interface ProofFetchOptions {
  /** HALLMARK_OUTBOUND_ALLOW_HOSTS. */
  allowHosts: string;
  timeoutMs: number;
  /** Extra trusted CA (tests); TLS is always verified. */
  ca?: string;
  /** Where a failed connection's cause goes. */
  log?: Logger;
}

export type ProofCheck = (
  website: string,
  enterpriseId: string,
) => Promise<{ verified: boolean; detail: string }>;

async function readCapped(body: AsyncIterable<Buffer>): Promise<string | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > MAX_PROOF_BYTES) return null;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export function createProofCheck(opts: ProofFetchOptions): ProofCheck {
  const dispatcher = createGuardedAgent(new OutboundGuard(opts.allowHosts), {
    ...(opts.ca ? { tls: { ca: opts.ca } } : {}),
    connections: 4,
    connectTimeoutMs: opts.timeoutMs,
  });
  return async (website, enterpriseId) => {
    const url = proofUrl(website);
    const signal = AbortSignal.timeout(opts.timeoutMs);
    try {
      const res = await request(url, {
        dispatcher,
        signal,
        headers: { accept: 'application/json', 'user-agent': 'Hallmark-Issuer-Check/1.0' },
        headersTimeout: opts.timeoutMs,
        bodyTimeout: opts.timeoutMs,
      });
      if (res.statusCode !== 200) {
        await res.body.dump({ limit: 64 * 1024 }).catch(() => undefined);
        return { verified: false, detail: `${PROOF_PATH} answered HTTP ${res.statusCode}.` };
      }
      const text = await readCapped(res.body);
      if (text === null) {
        res.body.destroy();
        return { verified: false, detail: `${PROOF_PATH} is larger than ${MAX_PROOF_BYTES} bytes.` };
      }
      return proofVerdict(text, enterpriseId);
    } catch (err) {
      if (
        err instanceof OutboundRefusedError ||
        (err as { cause?: unknown }).cause instanceof OutboundRefusedError
      ) {
        return { verified: false, detail: `${new URL(url).hostname} is not a public address.` };
      }
      const e = err as NodeJS.ErrnoException & { cause?: NodeJS.ErrnoException };
      opts.log?.info(
        {
          origin: new URL(url).origin,
          code: e.code ?? e.cause?.code,
          timedOut: signal.aborted,
          err: e.message,
        },
        'issuer proof: fetch failed',
      );
      return { verified: false, detail: `${PROOF_PATH} could not be fetched.` };
    }
  };
}
