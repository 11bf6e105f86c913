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
