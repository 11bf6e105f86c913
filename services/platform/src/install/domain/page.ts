// The page of a list (spec › Limits 2), checked before any query.
import { invalidParam } from '@hallmark/kit/errors';

/** A list's page (spec › Limits 2): `page` from 1, `limit` 1 to 100; unset, 1 and 20. */
export function parsePage(raw: { page?: number; limit?: number } | undefined): {
  page: number;
  limit: number;
} {
  const page = raw?.page || 1;
  const limit = raw?.limit || 20;
  if (!Number.isInteger(page) || page < 1) throw invalidParam('page', 'page is an integer of 1 or more.');
  if (!Number.isInteger(limit) || limit < 1 || limit > 100)
    throw invalidParam('limit', 'limit is an integer from 1 to 100.');
  return { page, limit };
}
