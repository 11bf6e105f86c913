// Template variables: declarations (name, type, required, defaultValue) and the typed
// formatting of values at render time. Pure.
import { HallmarkError, invalidParam } from '@hallmark/kit/errors';
import { VARIABLE_NAME } from './placeholders.js';

export const VARIABLE_TYPES = ['string', 'number', 'date', 'currency'] as const;
export type VariableType = (typeof VARIABLE_TYPES)[number];

export interface Variable {
  name: string;
  type: VariableType;
  required: boolean;
  /** Absent when none was declared (null is not a default). */
  defaultValue?: unknown;
}

export interface VariableInput {
  name?: unknown;
  type?: unknown;
  required?: unknown;
  defaultValue?: unknown;
}

export const MAX_VARIABLES = 100;
export const DEFAULT_LOCALE = 'en-US';

export function parseVariables(input: VariableInput[] | undefined): Variable[] {
  const list = input ?? [];
  if (list.length > MAX_VARIABLES) throw invalidParam('variables', `At most ${MAX_VARIABLES} variables.`);
  const seen = new Set<string>();
  return list.map((v, i) => {
    const at = `variables[${i}]`;
    if (typeof v.name !== 'string' || !VARIABLE_NAME.test(v.name))
      throw invalidParam(
        `${at}.name`,
        `Invalid ${at}.name: letters, digits and _, starting with a letter or _.`,
      );
    if (seen.has(v.name)) throw invalidParam(`${at}.name`, `Variable '${v.name}' is declared twice.`);
    seen.add(v.name);
    if (!VARIABLE_TYPES.includes(v.type as VariableType))
      throw invalidParam(`${at}.type`, `Invalid ${at}.type: one of ${VARIABLE_TYPES.join(', ')}.`);
    const out: Variable = { name: v.name, type: v.type as VariableType, required: v.required === true };
    if (v.defaultValue !== undefined && v.defaultValue !== null) {
      // A default must format like any value would (throws naming the declaration).
      formatValue(out.type, v.defaultValue, DEFAULT_LOCALE, `${at}.defaultValue`);
      out.defaultValue = v.defaultValue;
    }
    return out;
  });
}

/** Checks a BCP 47 tag and returns its canonical form. */
export function parseLocale(locale: string | undefined): string {
  if (!locale) return DEFAULT_LOCALE;
  try {
    const [canonical] = Intl.getCanonicalLocales(locale);
    if (canonical && Intl.NumberFormat.supportedLocalesOf(canonical).length > 0) return canonical;
  } catch {
    // RangeError: not a well-formed tag
  }
  throw invalidParam('locale', `Invalid locale '${locale}': expected a supported BCP 47 tag such as en-US.`);
}

const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;
const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;
const DECIMAL = /^-?\d{1,15}(\.\d{1,15})?$/;

/** Fraction digits of a currency's minor unit (USD 2, JPY 0, KWD 3). */
export function minorUnitDigits(currency: string): number {
  return (
    new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2
  );
}

/** Minor units as an exact decimal string: (1999, 2) → "19.99", (-5, 2) → "-0.05". */
export function minorToDecimal(amount: number, digits: number): string {
  const sign = amount < 0 ? '-' : '';
  const abs = String(Math.abs(amount)).padStart(digits + 1, '0');
  return digits === 0 ? `${sign}${abs}` : `${sign}${abs.slice(0, -digits)}.${abs.slice(-digits)}`;
}

const SUPPORTED_CURRENCIES = new Set(Intl.supportedValuesOf('currency'));

/** Formats one value per its declared type; throws parameter_invalid naming `param`. */
export function formatValue(type: VariableType, value: unknown, locale: string, param: string): string {
  const bad = (expected: string) => invalidParam(param, `Invalid ${param}: expected ${expected}.`);
  switch (type) {
    case 'string':
      if (typeof value === 'string') return value;
      if (typeof value === 'number' || typeof value === 'boolean') return String(value);
      throw bad('a string');
    case 'number': {
      if (typeof value === 'number' && Number.isFinite(value))
        return new Intl.NumberFormat(locale).format(value);
      // Decimal strings keep their exact digits (Intl formats the string, not a double).
      if (typeof value === 'string' && DECIMAL.test(value))
        return new Intl.NumberFormat(locale, { maximumFractionDigits: 15 }).format(
          value as unknown as number,
        );
      throw bad('a number');
    }
    case 'date': {
      if (typeof value !== 'string') throw bad('an ISO 8601 date (2025-01-31) or date-time');
      if (ISO_DATE.test(value)) {
        const d = new Date(`${value}T00:00:00Z`);
        if (Number.isNaN(d.getTime()) || d.toISOString().slice(0, 10) !== value)
          throw bad('an ISO 8601 date (2025-01-31) or date-time');
        return new Intl.DateTimeFormat(locale, { dateStyle: 'long', timeZone: 'UTC' }).format(d);
      }
      const d = new Date(value);
      if (!ISO_DATE_TIME.test(value) || Number.isNaN(d.getTime()))
        throw bad('an ISO 8601 date (2025-01-31) or date-time');
      return new Intl.DateTimeFormat(locale, {
        dateStyle: 'long',
        timeStyle: 'short',
        timeZone: 'UTC',
      }).format(d);
    }
    case 'currency': {
      const expected = 'an object {amount (integer minor units), currency (ISO 4217 code)}';
      if (!value || typeof value !== 'object' || Array.isArray(value)) throw bad(expected);
      const { amount, currency, ...rest } = value as Record<string, unknown>;
      if (Object.keys(rest).length > 0 || !Number.isSafeInteger(amount)) throw bad(expected);
      if (typeof currency !== 'string' || !SUPPORTED_CURRENCIES.has(currency.toUpperCase()))
        throw invalidParam(param, `Invalid ${param}: unknown currency '${String(currency)}'.`);
      const code = currency.toUpperCase();
      const decimal = minorToDecimal(amount as number, minorUnitDigits(code));
      return new Intl.NumberFormat(locale, { style: 'currency', currency: code }).format(
        decimal as unknown as number,
      );
    }
  }
}

/**
 * The formatted value of every declared variable for one render: the given value, else
 * the default, else '' for an optional one. A required variable with neither is
 * parameter_missing naming `variables.<name>`; a value for an undeclared name is
 * parameter_unknown (a typo would otherwise render silently blank).
 */
export function resolveValues(
  declared: readonly Variable[],
  given: Record<string, unknown> | undefined,
  locale: string,
): Map<string, string> {
  const values = given ?? {};
  const names = new Set(declared.map((v) => v.name));
  for (const name of Object.keys(values)) {
    if (!names.has(name))
      throw new HallmarkError('parameter_unknown', {
        param: `variables.${name}`,
        message: `Unknown variable: ${name}. The template declares ${[...names].join(', ') || 'no variables'}.`,
      });
  }
  const out = new Map<string, string>();
  for (const v of declared) {
    const raw = values[v.name] ?? v.defaultValue;
    if (raw === undefined || raw === null) {
      if (v.required)
        throw new HallmarkError('parameter_missing', {
          param: `variables.${v.name}`,
          message: `Missing required variable: ${v.name}.`,
        });
      out.set(v.name, '');
      continue;
    }
    out.set(v.name, formatValue(v.type, raw, locale, `variables.${v.name}`));
  }
  return out;
}
