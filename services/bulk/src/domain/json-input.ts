// Small readers for hand-validating a parsed JSON body: each failure throws the spec's
// parameter_missing / parameter_invalid / parameter_unknown naming the field's full path
// (`metadata[3].imageUrl`). Pure.
import { HallmarkError, invalidParam, missingParam } from '@hallmark/kit/errors';
import { controlCharacterMessage, hasForbiddenControl } from '@hallmark/kit/text';

export type JsonObject = Record<string, unknown>;

/** Keys that would reach an object's prototype if ever copied with plain assignment. */
export const FORBIDDEN_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

export const isPlainObject = (v: unknown): v is JsonObject =>
  typeof v === 'object' &&
  v !== null &&
  !Array.isArray(v) &&
  [Object.prototype, null].includes(Object.getPrototypeOf(v));

export const join = (path: string, key: string | number) =>
  typeof key === 'number' ? `${path}[${key}]` : path ? `${path}.${key}` : key;

export function object(value: unknown, path: string): JsonObject {
  if (value === undefined || value === null) throw missingParam(path);
  if (!isPlainObject(value)) throw invalidParam(path, `${path} must be an object.`);
  return value;
}

export function array(value: unknown, path: string): unknown[] {
  if (value === undefined || value === null) throw missingParam(path);
  if (!Array.isArray(value)) throw invalidParam(path, `${path} must be an array.`);
  return value;
}

/** Refuses keys outside `allowed` (typos would otherwise be dropped silently). */
export function onlyKeys(obj: JsonObject, allowed: readonly string[], path: string): void {
  const unknown = Object.keys(obj).filter((k) => !allowed.includes(k));
  if (unknown.length === 0) return;
  throw new HallmarkError('parameter_unknown', {
    param: join(path, unknown[0]!),
    message:
      `Unknown field(s) ${unknown.map((k) => `"${join(path, k)}"`).join(', ')}. ` +
      `Accepted${path ? ` in ${path}` : ''}: ${allowed.join(', ')}.`,
  });
}

export interface TextRule {
  max: number;
  /** Returns a problem such as 'must be an HTTPS URL', or null. */
  check?: (v: string) => string | null;
}

/** A required, non-blank string (trimmed). */
export function requiredText(obj: JsonObject, key: string, path: string, rule: TextRule): string {
  const p = join(path, key);
  const v = obj[key];
  if (v === undefined || v === null) throw missingParam(p);
  return text(v, p, rule);
}

/** An optional string: absent or null gives undefined. */
export function optionalText(obj: JsonObject, key: string, path: string, rule: TextRule): string | undefined {
  const v = obj[key];
  return v === undefined || v === null ? undefined : text(v, join(path, key), rule);
}

function text(v: unknown, p: string, rule: TextRule): string {
  if (typeof v !== 'string') throw invalidParam(p, `${p} must be a string.`);
  if (hasForbiddenControl(v)) throw invalidParam(p, controlCharacterMessage(p));
  const t = v.trim();
  if (t === '') throw invalidParam(p, `${p} must not be empty.`);
  if (t.length > rule.max) throw invalidParam(p, `${p} is longer than ${rule.max} characters.`);
  const problem = rule.check?.(t);
  if (problem) throw invalidParam(p, `${p} ${problem}.`);
  return t;
}

export interface JsonValueLimits {
  maxDepth: number;
  maxKeyLength: number;
}

/**
 * A fresh copy of a JSON value (plain objects, arrays, strings, finite numbers, booleans,
 * null), refusing prototype keys at any depth, and anything else, and excess nesting.
 */
export function jsonValue(v: unknown, p: string, lim: JsonValueLimits, depth = 0): unknown {
  // NUL cannot be stored in jsonb (and no C0 control belongs in metadata): refused by name.
  if (typeof v === 'string' && hasForbiddenControl(v)) throw invalidParam(p, controlCharacterMessage(p));
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return v;
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) throw invalidParam(p, `${p} must be a finite number.`);
    return v;
  }
  if (depth >= lim.maxDepth) throw invalidParam(p, `${p} is nested more than ${lim.maxDepth} levels deep.`);
  if (Array.isArray(v)) return v.map((x, i) => jsonValue(x, join(p, i), lim, depth + 1));
  if (!isPlainObject(v)) throw invalidParam(p, `${p} must be a JSON value.`);
  const out: JsonObject = {};
  for (const [k, x] of Object.entries(v)) {
    checkKey(k, p, lim);
    out[k] = jsonValue(x, join(p, k), lim, depth + 1);
  }
  return out;
}

export function checkKey(k: string, path: string, lim: Pick<JsonValueLimits, 'maxKeyLength'>): void {
  const p = join(path, k);
  if (FORBIDDEN_KEYS.has(k)) throw invalidParam(p, `The key "${k}" is not allowed in ${path}.`);
  if (hasForbiddenControl(k)) throw invalidParam(path, controlCharacterMessage(`A key in ${path}`));
  if (k.length === 0 || k.length > lim.maxKeyLength)
    throw invalidParam(p, `Keys in ${path} must have 1 to ${lim.maxKeyLength} characters.`);
}

export function deepFreeze<T>(v: T): T {
  if (typeof v === 'object' && v !== null) {
    for (const x of Object.values(v)) deepFreeze(x);
    Object.freeze(v);
  }
  return v;
}
