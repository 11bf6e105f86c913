// Auto-fulfilment rules (spec › Endpoints › Platform integration; Limits 7): the tracking
// the order is fulfilled with (the chain transaction), at most 3 attempts, backoff doubling
// from 1 s and capped at 10 s.
export const MAX_ATTEMPTS = 3;
export const MAX_BACKOFF_MS = 10_000;

export interface Tracking {
  number: string;
  url: string;
  company: string;
}

export function trackingFor(transactionHash: string, explorerTemplate: string, company: string): Tracking {
  return { number: transactionHash, url: explorerTemplate.replaceAll('{hash}', transactionHash), company };
}

/** The wait after failed attempt `attempt` (1-based): base, 2×base, 4×base … ≤ 10 s. */
export const backoffMs = (attempt: number, baseMs: number): number =>
  Math.min(MAX_BACKOFF_MS, baseMs * 2 ** (attempt - 1));

export type FulfilmentStatus = 'pending' | 'fulfilled' | 'failed' | 'skipped';

/** A stored failure reason is short and never carries an upstream body. */
export const failureText = (graphql: string, rest: string | null): string =>
  (rest === null ? `GraphQL: ${graphql}` : `GraphQL: ${graphql}; REST: ${rest}`).slice(0, 500);
