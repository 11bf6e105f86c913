// How long a paid order waits for the platform's Admin API when its products are the only
// source of a unit's image (workflows/order-paid.ts): the lookup's attempts, then waits that
// double from `waitMs` up to twelve times it (5 s → 60 s by default: ~7 minutes over 10 waits).

export interface ProductLookup {
  /** Attempts at one lookup (each GraphQL, then REST) before it counts as unavailable. */
  attempts: number;
  /** The first wait before the lookup is tried again. */
  waitMs: number;
  /** Lookups tried again before the order is reported. */
  waits: number;
}

/** The wait before the lookup's `i`-th retry (0-based). */
export const productWaitMs = (waitMs: number, i: number): number => Math.min(waitMs * 2 ** i, waitMs * 12);
