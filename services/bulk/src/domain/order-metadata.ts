// One VoucherMetadata item of the JSON (order) form (spec › Bulk mint job, JSON form):
// required name, description, imageUrl; the named optional fields; any custom keys as JSON
// values. Returns a fresh, frozen copy, safe to share between the units it expands to. Pure.
import { invalidParam } from '@hallmark/kit/errors';
import {
  isoDateProblem,
  MAX_DESCRIPTION_LENGTH,
  MAX_NAME_LENGTH,
  MAX_SHORT_TEXT_LENGTH,
  MAX_URL_LENGTH,
  urlProblem,
} from './fields.js';
import {
  checkKey,
  deepFreeze,
  join,
  jsonValue,
  object,
  optionalText,
  requiredText,
  type JsonObject,
  type TextRule,
} from './json-input.js';

export const MAX_CUSTOM_KEYS = 50;
export const MAX_METADATA_BYTES = 16 * 1024;
const JSON_LIMITS = { maxDepth: 5, maxKeyLength: 100 };

const SHORT: TextRule = { max: MAX_SHORT_TEXT_LENGTH };
/** The optional fields the spec names, each with its rule. */
const OPTIONAL: Record<string, TextRule> = {
  sku: SHORT,
  vendor: SHORT,
  productType: SHORT,
  brand: SHORT,
  collection: SHORT,
  serialNumber: SHORT,
  rarity: SHORT,
  condition: SHORT,
  warrantyExpiry: { max: 40, check: isoDateProblem },
  externalUrl: { max: MAX_URL_LENGTH, check: (v) => urlProblem(v, ['https:', 'http:']) },
};
const REQUIRED = ['name', 'description', 'imageUrl'];

export function parseMetadataItem(value: unknown, path: string): Readonly<JsonObject> {
  const item = object(value, path);
  const out: JsonObject = {
    name: requiredText(item, 'name', path, { max: MAX_NAME_LENGTH }),
    description: requiredText(item, 'description', path, { max: MAX_DESCRIPTION_LENGTH }),
    imageUrl: requiredText(item, 'imageUrl', path, { max: MAX_URL_LENGTH, check: (v) => urlProblem(v) }),
  };
  for (const [key, rule] of Object.entries(OPTIONAL)) {
    const v = optionalText(item, key, path, rule);
    if (v !== undefined) out[key] = v;
  }
  const custom = Object.keys(item).filter((k) => !REQUIRED.includes(k) && !Object.hasOwn(OPTIONAL, k));
  if (custom.length > MAX_CUSTOM_KEYS)
    throw invalidParam(
      path,
      `${path} has ${custom.length} custom keys; at most ${MAX_CUSTOM_KEYS} are accepted.`,
    );
  for (const key of custom) {
    checkKey(key, path, JSON_LIMITS);
    out[key] = jsonValue(item[key], join(path, key), JSON_LIMITS);
  }
  if (Buffer.byteLength(JSON.stringify(out)) > MAX_METADATA_BYTES)
    throw invalidParam(path, `${path} is larger than ${MAX_METADATA_BYTES / 1024} KB once serialised.`);
  return deepFreeze(out);
}
