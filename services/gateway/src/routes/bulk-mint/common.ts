// What every bulk route file shares: the OpenAPI tag and the routes' auth, scope and rate
// group (spec › Authentication 4 and 8; Limits: bulk rows).
import type { Access } from '../../endpoint/define.js';

export const TAGS = ['Bulk mint'];

/** Reading and managing jobs: API key or session, `bulk:mint`, 100 per 15 minutes. */
export const POLL: Access = { auth: 'either', scope: 'bulk:mint', rateGroup: 'bulk_poll' };

/** Cancelling counts against the poll budget, not the 10 jobs/hour creation budget. */
export const CANCEL = POLL;

export const RETRY: Access = { auth: 'either', scope: 'bulk:retry', rateGroup: 'bulk_retry' };

export const DOWNLOAD: Access = { auth: 'either', scope: 'bulk:mint', rateGroup: 'bulk_download' };

/** No credential; per client address (spec › Authentication 5, Limits 9). */
export const PUBLIC: Access = { auth: 'public', rateGroup: 'public' };
