// Integration settings: the auto-fulfil switch and the optional product template mapping
// (spec › Platform integration record), validated before anything is stored.
import { invalidParam } from '@hallmark/kit/errors';

export interface ProductMapping {
  productId: string;
  templateId: string;
  enabled: boolean;
  variantMappings: Record<string, string>;
  metadataMapping: Record<string, string>;
  /** The certificates' image when the product has none or cannot be read (https). */
  imageUrl?: string;
}

export type ProductTemplateMapping = Record<string, ProductMapping>;

const PRODUCT_GID = /^gid:\/\/[a-z]+\/Product\/\d{1,20}$/;
const MAX_PRODUCTS = 1000;
const isRecord = (v: unknown): v is Record<string, unknown> =>
  !!v && typeof v === 'object' && !Array.isArray(v);

function stringMap(v: unknown, param: string): Record<string, string> {
  if (v === undefined) return {};
  if (!isRecord(v)) throw invalidParam(param, `${param} is an object of strings.`);
  const out: Record<string, string> = {};
  for (const [k, x] of Object.entries(v)) {
    if (typeof x !== 'string' || x.length > 200 || k.length > 200)
      throw invalidParam(`${param}.${k}`, 'a string of at most 200 characters.');
    out[k] = x;
  }
  return out;
}

function isHttpsUrl(v: unknown): boolean {
  if (typeof v !== 'string' || v.length > 2048) return false;
  try {
    return new URL(v).protocol === 'https:';
  } catch {
    return false;
  }
}

/** Parses `productTemplateMapping` (null clears it). */
export function parseMapping(raw: unknown): ProductTemplateMapping | null {
  if (raw === null) return null;
  if (!isRecord(raw))
    throw invalidParam('productTemplateMapping', 'productTemplateMapping is an object keyed by product id.');
  const entries = Object.entries(raw);
  if (entries.length > MAX_PRODUCTS)
    throw invalidParam('productTemplateMapping', `at most ${MAX_PRODUCTS} products.`);
  const out: ProductTemplateMapping = {};
  for (const [gid, m] of entries) {
    const p = `productTemplateMapping.${gid}`;
    if (!PRODUCT_GID.test(gid)) throw invalidParam(p, 'keys are product global ids (gid://…/Product/<n>).');
    if (!isRecord(m)) throw invalidParam(p, 'an object.');
    if (m.productId !== undefined && m.productId !== gid)
      throw invalidParam(`${p}.productId`, 'productId equals its key.');
    if (typeof m.templateId !== 'string' || !/^[A-Za-z0-9_-]{1,64}$/.test(m.templateId))
      throw invalidParam(`${p}.templateId`, 'templateId is required (a template id).');
    if (m.enabled !== undefined && typeof m.enabled !== 'boolean')
      throw invalidParam(`${p}.enabled`, 'a boolean.');
    if (m.imageUrl !== undefined && !isHttpsUrl(m.imageUrl))
      throw invalidParam(`${p}.imageUrl`, 'imageUrl is an https URL of at most 2048 characters.');
    out[gid] = {
      productId: gid,
      templateId: m.templateId,
      enabled: m.enabled ?? true,
      variantMappings: stringMap(m.variantMappings, `${p}.variantMappings`),
      metadataMapping: stringMap(m.metadataMapping, `${p}.metadataMapping`),
      ...(m.imageUrl !== undefined ? { imageUrl: m.imageUrl as string } : {}),
    };
  }
  return out;
}
