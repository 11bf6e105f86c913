// Which image of the uploaded ZIP belongs to which CSV row. Pure.
//
// A row with `imageFile` names its image: only that file's base name (lower-cased, folders
// ignored) is looked up, never a fallback, because silently attaching another picture to a
// certificate is worse than failing the row. Otherwise, in order:
//   1. `<row>.png`, `<row>.jpg`, `<row>.jpeg`, `<row>.webp`, `<row>.gif` (row = the CSV data
//      row number, see csv.ts), matched against base names;
//   2. the row's `name` as a file stem (base name without extension): the name lower-cased
//      and trimmed ("Gold Watch" ↔ `gold watch.png`), then the name slugified, which the
//      index also applies to stems ("Gold Watch" ↔ `Gold_Watch.jpg`, `gold-watch.webp`).
// The slug: Unicode NFKD, accents dropped, lower-cased, each run of characters other than
// letters and digits turned into one `-`, leading and trailing `-` removed.

export interface ImageIndex<T> {
  /** Lower-cased base name → image. */
  byKey: Map<string, T>;
  /** Lower-cased stem, and slug of the stem → image; the first image of a stem wins. */
  byStem: Map<string, T>;
}

export interface MatchableRow {
  row: number;
  name: string;
  imageFile?: string;
}

type Lookup = { kind: 'key' | 'stem'; value: string };

const ROW_EXTENSIONS = ['png', 'jpg', 'jpeg', 'webp', 'gif'] as const;

export function slugify(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '-')
    .replace(/^-+|-+$/g, '');
}

const baseName = (file: string) => file.trim().split(/[/\\]/).at(-1)!.toLowerCase();

function lookups(row: MatchableRow): Lookup[] {
  if (row.imageFile?.trim()) return [{ kind: 'key', value: baseName(row.imageFile) }];
  const out: Lookup[] = ROW_EXTENSIONS.map((ext) => ({ kind: 'key', value: `${row.row}.${ext}` }));
  const plain = row.name.trim().toLowerCase();
  const slug = slugify(row.name);
  if (plain) out.push({ kind: 'stem', value: plain });
  if (slug && slug !== plain) out.push({ kind: 'stem', value: slug });
  return out;
}

/** The names looked up for a row, in order: base names first, then name stems. */
export function imageCandidates(row: MatchableRow): string[] {
  return lookups(row).map((l) => l.value);
}

export function matchImage<T>(
  row: MatchableRow,
  index: Pick<ImageIndex<T>, 'byKey' | 'byStem'>,
): T | undefined {
  for (const l of lookups(row)) {
    const hit = (l.kind === 'key' ? index.byKey : index.byStem).get(l.value);
    if (hit !== undefined) return hit;
  }
  return undefined;
}

export const newImageIndex = <T>(): ImageIndex<T> => ({ byKey: new Map(), byStem: new Map() });

/** Adds an image under its key, its stem and its stem's slug (first one wins on a clash). */
export function addToImageIndex<T>(
  index: ImageIndex<T>,
  image: { key: string; stem: string },
  value: T,
): void {
  if (!index.byKey.has(image.key)) index.byKey.set(image.key, value);
  for (const stem of new Set([image.stem, slugify(image.stem)]))
    if (stem && !index.byStem.has(stem)) index.byStem.set(stem, value);
}
