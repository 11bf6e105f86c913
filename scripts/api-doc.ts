// docs/api.md is hand-written prose with generated regions, so that nothing in it can drift
// from the code that decides it:
//   guide "<section>"  the section of the guide the gateway serves as /openapi.json's
//                      info.description (services/gateway/src/openapi/guide.ts is the one
//                      source; every one of its sections must appear in docs/api.md once)
//   errors             the error catalogue (packages/kit/src/errors.ts)
//   events             the webhook event types (packages/kit/src/events.ts)
//   operations         every operation of the OpenAPI document: credential and scopes
// A region is `<!-- generated: KIND ["section"] … -->` … `<!-- end generated -->`. `pnpm gen`
// rewrites them all (CI fails when that changes the file); test/lint/api-doc.test.ts checks
// every region but `operations` (which needs the whole gateway built) on each test run.
import { ERROR_CATALOGUE } from '@hallmark/kit/errors';
import { ENTERPRISE_EVENT_NAMES, VERSIONED_EVENT_TYPES } from '@hallmark/kit/events';

type Json = Record<string, any>;

const REGION = /(<!-- generated: (\w+)(?: "([^"]+)")?[^\n]*?-->\n)([\s\S]*?)(<!-- end generated -->)/g;

/** The guide's `## ` sections by title (text before the first heading under ''). */
export function guideSections(guide: string): Map<string, string> {
  const sections = new Map<string, string>();
  let title = '';
  let body: string[] = [];
  let fenced = false;
  const flush = () => sections.set(title, body.join('\n').trim());
  for (const line of guide.split('\n')) {
    if (/^(```|~~~)/.test(line)) fenced = !fenced;
    const heading = fenced ? null : /^## (.+)$/.exec(line);
    if (heading) {
      flush();
      title = heading[1]!.trim();
      body = [];
    } else body.push(line);
  }
  flush();
  return sections;
}

const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

export function errorsTable(): string {
  const rows = Object.entries(ERROR_CATALOGUE).map(
    ([code, e]) =>
      `| \`${code}\` | \`${e.type}\` | ${e.http} | ${'retryable' in e && e.retryable ? 'yes' : 'no'} | ${cell(e.message)} |`,
  );
  return ['| code | type | HTTP | retry | message |', '|---|---|---|---|---|', ...rows].join('\n');
}

export function eventsTable(): string {
  const groups = new Map<string, string[]>();
  for (const t of VERSIONED_EVENT_TYPES) {
    const g = t.split('.')[0]!;
    groups.set(g, [...(groups.get(g) ?? []), `\`${t}\``]);
  }
  return [
    '| delivered to | event types |',
    '|---|---|',
    ...[...groups].map(([g, types]) => `| versioned endpoints (${g}) | ${types.join(', ')} |`),
    `| enterprise subscriptions | ${ENTERPRISE_EVENT_NAMES.map((n) => `\`${n}\``).join(', ')} |`,
  ].join('\n');
}

function credentialOf(op: Json): string {
  const schemes = new Set((op.security ?? []).flatMap((s: Json) => Object.keys(s)));
  if (schemes.size === 0) return 'public';
  if (schemes.has('platformHmac')) return 'platform signature';
  const key = schemes.has('bearerAuth') || schemes.has('apiKeyHeader');
  if (key && schemes.has('sessionJwt')) return 'key or session';
  return key ? 'API key' : 'session';
}

/** Every operation of the document under its tag: method, path, summary, credential, scopes. */
export function operationsTable(doc: Json): string {
  const byTag = new Map<string, string[]>();
  for (const [path, item] of Object.entries<Json>(doc.paths ?? {})) {
    for (const method of ['get', 'post', 'put', 'patch', 'delete']) {
      const op = item[method] as Json | undefined;
      if (!op) continue;
      const scopes = ((op['x-required-scopes'] ?? []) as string[]).map((s) => `\`${s}\``).join(' or ');
      const row = `| \`${method.toUpperCase()} ${path}\` | ${cell(op.summary ?? '')} | ${credentialOf(op)} | ${scopes || '—'} |`;
      const tag = (op.tags?.[0] as string | undefined) ?? 'Other';
      byTag.set(tag, [...(byTag.get(tag) ?? []), row]);
    }
  }
  const order = [...((doc.tags ?? []) as Json[]).map((t) => t.name as string), 'Other'];
  return order
    .filter((t) => byTag.has(t))
    .map((t) =>
      [
        `**${t}**`,
        '',
        '| operation | summary | credential | scopes |',
        '|---|---|---|---|',
        ...byTag.get(t)!,
      ].join('\n'),
    )
    .join('\n\n');
}

/**
 * docs/api.md with its regions rendered. Without `doc` the `operations` region is kept as it
 * is. Throws on an unknown region or guide section, and on a guide section no region shows.
 */
export function renderApiDoc(text: string, sources: { guide: string; doc?: Json }): string {
  const sections = guideSections(sources.guide);
  const used = new Set<string>();
  const out = text.replace(
    REGION,
    (whole, open: string, kind: string, arg: string | undefined, _b, close: string) => {
      let body: string;
      if (kind === 'guide') {
        if (!arg || !sections.has(arg))
          throw new Error(`docs/api.md: the served guide has no section "${arg}"`);
        used.add(arg);
        body = sections.get(arg)!;
      } else if (kind === 'errors') body = errorsTable();
      else if (kind === 'events') body = eventsTable();
      else if (kind === 'operations') {
        if (!sources.doc) return whole;
        body = operationsTable(sources.doc);
      } else throw new Error(`docs/api.md: unknown generated region "${kind}"`);
      return `${open}${body}\n${close}`;
    },
  );
  const unused = [...sections.keys()].filter((t) => t !== '' && !used.has(t));
  if (unused.length > 0)
    throw new Error(`docs/api.md: sections of the served guide it does not show: ${unused.join(', ')}`);
  return out;
}
