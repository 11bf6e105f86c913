// What the markdown of the repository points at, for the doc-link test: links (inline,
// reference definitions, HTML href/src) and the repository paths named in code spans, each
// with its line, read outside fenced code blocks. Pure: text in, references out.

export interface Ref {
  kind: 'link' | 'path';
  target: string;
  line: number;
}

const FENCE = /^\s{0,3}(```|~~~)/;
/** Top-level entries of the repository a code span may name (`docs/api.md`, `services/…`). */
const REPO_PATH =
  /^(?:README\.md|CHANGELOG\.md|(?:docs|services|packages|proto|scripts|test|deploy|bench|\.changeset|\.ci)\/[^\s]*)$/;
/** Placeholders and globs: a pattern, not one file (`services/<svc>/…`, `*.proto`, `{hash}`). */
const PATTERN = /[<>{}*…|$]|\.\.\.|\bNAME\b/;

/** Lines of prose: fenced code blocks blanked, so their text is never read as a link. */
function proseLines(text: string): string[] {
  let fenced = false;
  return text.split('\n').map((line) => {
    if (FENCE.test(line)) {
      fenced = !fenced;
      return '';
    }
    return fenced ? '' : line;
  });
}

export function referencesIn(text: string): Ref[] {
  const out: Ref[] = [];
  proseLines(text).forEach((raw, i) => {
    const line = i + 1;
    const spans = [...raw.matchAll(/(`+)([^`]+?)\1/g)].map((m) => m[2]!.trim());
    for (const span of spans) {
      const path = span.replace(/(?::\d+(?:-\d+)?|#[\w-]+)$/, '');
      if (REPO_PATH.test(path) && !PATTERN.test(path)) out.push({ kind: 'path', target: path, line });
    }
    // Links are read with the code spans removed (`[a](b)` inside backticks is text).
    const prose = raw.replace(/(`+)[^`]+?\1/g, '');
    for (const m of prose.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g))
      out.push({ kind: 'link', target: m[1]!, line });
    const def = /^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+.*)?$/.exec(prose);
    if (def) out.push({ kind: 'link', target: def[1]!, line });
    for (const m of prose.matchAll(/\b(?:href|src)\s*=\s*"([^"]+)"/g))
      out.push({ kind: 'link', target: m[1]!, line });
  });
  return out;
}

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
export function anchorsOf(text: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const line of proseLines(text)) {
    const m = /^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!m) continue;
    const base = m[1]!
      .replace(/`/g, '')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  return anchors;
}
