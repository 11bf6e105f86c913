// The page of a list RPC (common.v1 PageRequest/PageInfo; spec › Limits 2: limit ≤ 100,
// default 20), checked before any query, and the PageInfo answered with it. Pure: a service's
// domain/ imports it (`@hallmark/kit/page`).
import { invalidParam } from './errors.js';

export const DEFAULT_LIMIT = 20;
export const MAX_LIMIT = 100;
/** Far past any real list: bounds the OFFSET a caller can make the database walk. */
export const MAX_PAGE = 1_000_000;

export interface Page {
  page: number;
  limit: number;
}

/** The page asked for (0 or unset: the defaults); out of range → parameter_invalid. */
export function parsePage(req: { page?: number; limit?: number } | undefined): Page {
  const page = req?.page || 1;
  const limit = req?.limit || DEFAULT_LIMIT;
  if (!Number.isInteger(page) || page < 1 || page > MAX_PAGE)
    throw invalidParam('page', `page must be between 1 and ${MAX_PAGE}.`);
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT)
    throw invalidParam('limit', `limit must be between 1 and ${MAX_LIMIT}.`);
  return { page, limit };
}

/** The PageInfo of a page of `total` items. */
export const pageInfo = ({ page, limit }: Page, total: number) => ({
  page,
  limit,
  total,
  total_pages: Math.ceil(total / limit),
});
