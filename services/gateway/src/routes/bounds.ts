// Numeric bounds shared by route schemas (spec › Limits where it states them; otherwise
// generous ceilings that keep every value inside what the services store).
import { Type } from '../endpoint/schema.js';
/** Money in integer minor units: up to 10^12 (ten billion in a two-decimal currency). */
export const MAX_MINOR_UNITS = 1_000_000_000_000;
/** Use counts (`max_uses`, per customer). */
export const MAX_USES = 1_000_000_000;
/** Deepest page a list can be asked for. */
const MAX_PAGE = 1_000_000;

const pageParam = Type.Integer({
  format: 'int32',
  minimum: 1,
  maximum: MAX_PAGE,
  default: 1,
  description: 'Page number, from 1',
});
/** spec › Limits 2: `limit` maximum 100, default 20. */
const limitParam = Type.Integer({
  format: 'int32',
  minimum: 1,
  maximum: 100,
  default: 20,
  description: 'Items per page (at most 100)',
});
export const pageQuery = { page: Type.Optional(pageParam), limit: Type.Optional(limitParam) };
