// CHANGELOG.md in Keep a Changelog form, as `pnpm release` writes it: the `Unreleased`
// entries and the pending changesets' lines become the new version's section. Pure.

export const CATEGORIES = ['Added', 'Changed', 'Deprecated', 'Removed', 'Fixed', 'Security'] as const;
export type Category = (typeof CATEGORIES)[number];

export interface Entry {
  category: Category;
  /** The bullet's text, without the leading `- `. */
  text: string;
}

/** A changeset file's summary (after its front matter) as one changelog entry. */
export function entryOfChangeset(file: string): Entry {
  const summary = file.replace(/^---\n[\s\S]*?\n---\n/, '').trim();
  if (!summary) throw new Error('a changeset has no summary line');
  const m = /^(Added|Changed|Deprecated|Removed|Fixed|Security):\s*/.exec(summary);
  const text = (m ? summary.slice(m[0].length) : summary).replace(/\s*\n\s*/g, ' ');
  return { category: (m?.[1] as Category | undefined) ?? 'Changed', text };
}

interface Section {
  preamble: string;
  entries: Map<Category, string[]>;
}

/** The `### Category` lists of a section body (each bullet kept with its continuation lines). */
function parseSection(body: string): Section {
  const entries = new Map<Category, string[]>();
  const [preamble, ...parts] = body.split(/^### /m);
  for (const part of parts) {
    const [title, ...lines] = part.split('\n');
    const category = CATEGORIES.find((c) => c === title!.trim());
    if (!category) throw new Error(`CHANGELOG.md: unknown heading "### ${title}" under Unreleased`);
    const bullets = lines
      .join('\n')
      .split(/^- /m)
      .map((b) => b.trim())
      .filter(Boolean);
    entries.set(category, [...(entries.get(category) ?? []), ...bullets.map((b) => `- ${b}`)]);
  }
  return { preamble: preamble!.trim(), entries };
}

/**
 * The changelog with a new section `## [version] - date` made of the Unreleased section's
 * entries and `added`, and an empty Unreleased section above it.
 */
export function releaseChangelog(text: string, version: string, date: string, added: Entry[]): string {
  if (new RegExp(`^## \\[${version.replace(/\./g, '\\.')}\\]`, 'm').test(text))
    throw new Error(`CHANGELOG.md already has a section for ${version}`);
  const start = /^## \[Unreleased\][^\n]*\n/m.exec(text);
  if (!start) throw new Error('CHANGELOG.md has no "## [Unreleased]" section');
  const bodyStart = start.index + start[0].length;
  const next = /^## /m.exec(text.slice(bodyStart));
  const bodyEnd = next ? bodyStart + next.index : text.length;
  const section = parseSection(text.slice(bodyStart, bodyEnd));
  for (const e of added)
    section.entries.set(e.category, [...(section.entries.get(e.category) ?? []), `- ${e.text}`]);
  const lists = CATEGORIES.filter((c) => section.entries.get(c)?.length).map(
    (c) => `### ${c}\n\n${section.entries.get(c)!.join('\n')}\n`,
  );
  if (lists.length === 0) throw new Error('nothing to release: no Unreleased entries and no changesets');
  const released = [`## [${version}] - ${date}\n`, section.preamble && `${section.preamble}\n`, ...lists]
    .filter(Boolean)
    .join('\n');
  return `${text.slice(0, bodyStart)}\n${released}\n${text.slice(bodyEnd)}`;
}

/** The newest released version named by the changelog (`## [x.y.z] - date`). */
export function latestRelease(text: string): string | null {
  return /^## \[(\d+\.\d+\.\d+[^\]]*)\] - \d{4}-\d{2}-\d{2}/m.exec(text)?.[1] ?? null;
}
