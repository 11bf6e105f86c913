// Failure injection: tell a surface (GraphQL, REST, the token exchange or webhook sending)
// to answer GraphQL errors, a 5xx, or nothing at all (a timeout) for the next N calls or
// until cleared, so the caller's fallback and retries run against real failures.
export type FaultTarget = 'graphql' | 'rest' | 'token';
export type FaultMode = 'errors' | '5xx' | 'timeout';

export interface Fault {
  mode: FaultMode;
  /** Calls left to fail; Infinity until cleared. */
  remaining: number;
  /** How long a `timeout` holds the request before dropping it (ms). */
  holdMs: number;
  /** Only calls whose GraphQL document or REST path contains this text fail. */
  match?: string;
}

export class Faults {
  private readonly active = new Map<FaultTarget, Fault>();

  set(
    target: FaultTarget,
    mode: FaultMode,
    opts: { times?: number; holdMs?: number; match?: string } = {},
  ): void {
    this.active.set(target, {
      mode,
      remaining: opts.times ?? Infinity,
      holdMs: opts.holdMs ?? 30_000,
      match: opts.match,
    });
  }

  clear(target?: FaultTarget): void {
    if (target) this.active.delete(target);
    else this.active.clear();
  }

  /** The fault this call should suffer, if any (consumes one of its count). */
  take(target: FaultTarget, text = ''): Fault | undefined {
    const fault = this.active.get(target);
    if (!fault || (fault.match && !text.includes(fault.match))) return undefined;
    fault.remaining -= 1;
    if (fault.remaining <= 0) this.active.delete(target);
    return fault;
  }
}
