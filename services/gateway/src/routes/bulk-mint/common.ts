// What every bulk route file shares: the OpenAPI tag and the routes' auth, scope and rate
// group (spec › Authentication 4 and 8; Limits: bulk rows).
export const TAGS = ['Bulk mint'];

/** Reading and managing jobs: API key or session, `bulk:mint`, 100 per 15 minutes. */
export const POLL = { auth: 'either' as const, scope: 'bulk:mint', rateGroup: 'bulk_poll' as const };

/** Cancelling counts against the poll budget, not the 10 jobs/hour creation budget. */
export const CANCEL = POLL;

export const RETRY = { auth: 'either' as const, scope: 'bulk:retry', rateGroup: 'bulk_retry' as const };

export const DOWNLOAD = { auth: 'either' as const, scope: 'bulk:mint', rateGroup: 'bulk_download' as const };

/** No credential; per client address (spec › Authentication 5, Limits 9). */
export const PUBLIC = { auth: 'public' as const, rateGroup: 'public' as const };
