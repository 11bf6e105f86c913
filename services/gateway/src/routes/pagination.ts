// The page of a versioned list (spec › Limits 2): the `page`/`limit` query and the
// `pagination` object every list answers with.
import type { PageInfo } from '@hallmark/proto/common/v1/common';
import { defineResource } from '../endpoint/resource.js';
import { Type } from '../endpoint/schema.js';

const count = Type.Integer({ format: 'int64', minimum: 0, maximum: Number.MAX_SAFE_INTEGER });

export const Pagination = defineResource(
  'Pagination',
  Type.Object(
    {
      page: Type.Integer({ format: 'int32', minimum: 1, maximum: 1_000_000 }),
      limit: Type.Integer({ format: 'int32', minimum: 1, maximum: 100 }),
      total: count,
      total_pages: count,
    },
    { description: 'Page of a versioned list (spec › Limits 2: limit ≤ 100, default 20)' },
  ),
);

export const presentPagination = (p: PageInfo) => ({
  page: p.page,
  limit: p.limit,
  total: p.total,
  total_pages: p.total_pages,
});

/**
 * The page of an unversioned list (`/api/…`, answers `{success, data}`), as the bulk jobs list
 * has always shown it: the `page`/`limit` query (limit ≤ 100, default 20) and
 * `pagination:{page, limit, totalPages, totalItems}`.
 */
export const apiPageQuery = {
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1 })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
};

export const ApiPagination = Type.Object({
  page: Type.Integer({ format: 'int32', minimum: 1, maximum: 1_000_000 }),
  limit: Type.Integer({ format: 'int32', minimum: 1, maximum: 100 }),
  totalPages: count,
  totalItems: count,
});

/** The request's page (AJV has filled in the defaults; the fallbacks only satisfy the type). */
export const apiPageOf = (q: { page?: number; limit?: number }) => ({
  page: q.page ?? 1,
  limit: q.limit ?? 20,
});

export const presentApiPagination = (p: PageInfo | undefined, asked: { page: number; limit: number }) => ({
  page: p?.page ?? asked.page,
  limit: p?.limit ?? asked.limit,
  totalPages: p?.total_pages ?? 0,
  totalItems: p?.total ?? 0,
});
