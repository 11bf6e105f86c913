// `{{name}}` placeholders: parsing (every `{{` must close and hold a valid name) and
// filling. Pure; the callers decide how values are escaped.
import { invalidParam } from '@hallmark/kit/errors';

export const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

/** One placeholder: `{{`, optional spaces, the name, optional spaces, `}}`; no braces or newlines inside. */
const PLACEHOLDER = /\{\{([^{}\n]*)\}\}/g;

export interface Placeholder {
  name: string;
  /** Offsets of the whole `{{…}}` in the text. */
  start: number;
  end: number;
}

/**
 * Every placeholder in `text`, in order. Throws parameter_invalid naming `param` for a
 * placeholder with an invalid name and for a `{{` that never closes.
 */
export function parsePlaceholders(text: string, param: string): Placeholder[] {
  const out: Placeholder[] = [];
  let covered = 0;
  for (const m of text.matchAll(PLACEHOLDER)) {
    const start = m.index;
    checkNoStrayOpen(text.slice(covered, start), param);
    const name = m[1]!.trim();
    if (!VARIABLE_NAME.test(name)) {
      throw invalidParam(
        param,
        `Invalid placeholder ${m[0]} in ${param}: a variable name is letters, digits and _.`,
      );
    }
    out.push({ name, start, end: start + m[0].length });
    covered = start + m[0].length;
  }
  checkNoStrayOpen(text.slice(covered), param);
  return out;
}

function checkNoStrayOpen(segment: string, param: string) {
  const i = segment.indexOf('{{');
  if (i >= 0) {
    const excerpt = segment.slice(i, i + 24).split('\n')[0];
    throw invalidParam(param, `Unclosed placeholder in ${param} near '${excerpt}'.`);
  }
}

/** Throws parameter_invalid naming the first placeholder whose variable is not declared. */
export function checkDeclared(text: string, param: string, declared: ReadonlySet<string>): void {
  for (const p of parsePlaceholders(text, param)) {
    if (!declared.has(p.name)) {
      throw invalidParam(
        param,
        `Placeholder {{${p.name}}} in ${param} is not declared in variables. Declare '${p.name}' or remove the placeholder.`,
      );
    }
  }
}

/** Replaces each placeholder by `value(name)` (already escaped as the output needs). */
export function fill(text: string, value: (name: string) => string): string {
  let out = '';
  let at = 0;
  for (const p of parsePlaceholders(text, 'template')) {
    out += text.slice(at, p.start) + value(p.name);
    at = p.end;
  }
  return out + text.slice(at);
}

const HTML_ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

export const escapeHtml = (s: string): string => s.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]!);

/** Every string inside a JSON value, with its path (`config.message`, `config.to[0]`). */
export function stringsIn(value: unknown, path: string): { path: string; text: string }[] {
  if (typeof value === 'string') return [{ path, text: value }];
  if (Array.isArray(value)) return value.flatMap((v, i) => stringsIn(v, `${path}[${i}]`));
  if (value && typeof value === 'object')
    return Object.entries(value).flatMap(([k, v]) => stringsIn(v, `${path}.${k}`));
  return [];
}
