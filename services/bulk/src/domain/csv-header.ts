// The CSV form's header row (spec › Bulk mint job, CSV form): which columns exist, where,
// and whether the file can be accepted at all. Every problem here refuses the whole upload
// with parameter_invalid on `metadata`, before any job exists. Pure.
import { invalidParam } from '@hallmark/kit/errors';

export const REQUIRED_COLUMNS = ['name', 'description', 'category', 'recipientEmail'] as const;
export const OPTIONAL_COLUMNS = [
  'recipientName',
  'imageUrl',
  'imageFile',
  'expiryDays',
  // GS1 identity and product passport of the certificate (docs/digital-link.md).
  'gtin',
  'serial',
  'passportUrl',
] as const;
export const ATTRIBUTE_PREFIX = 'attribute_';
export const MAX_ATTRIBUTE_COLUMNS = 100;
export const MAX_ATTRIBUTE_NAME_LENGTH = 100;

export type KnownColumn = (typeof REQUIRED_COLUMNS)[number] | (typeof OPTIONAL_COLUMNS)[number];
const KNOWN: ReadonlySet<string> = new Set<string>([...REQUIRED_COLUMNS, ...OPTIONAL_COLUMNS]);

export interface Header {
  /** Number of cells in the header row; every data row must have as many. */
  width: number;
  /** Cell index of each known column present. */
  index: Partial<Record<KnownColumn, number>>;
  attributes: { traitType: string; index: number }[];
}

const list = (names: string[]) => names.map((n) => `"${n}"`).join(', ');

/**
 * Reads the header row. Names are case-sensitive and trimmed of surrounding spaces; cells
 * left empty (trailing commas a spreadsheet adds) are ignored. Unknown names are refused
 * rather than ignored: a mistyped `ExpiryDays` would otherwise silently fall back to the
 * default for every row of the job.
 */
export function readHeader(cells: string[], hasZip: boolean): Header {
  const names = cells.map((c) => c.trim());
  if (names.every((n) => n === ''))
    throw invalidParam('metadata', 'The CSV file has no header row: its first line is empty.');

  const seen = new Set<string>();
  const duplicates = new Set<string>();
  const unknown: string[] = [];
  const header: Header = { width: cells.length, index: {}, attributes: [] };
  names.forEach((name, i) => {
    if (name === '') return;
    if (seen.has(name)) duplicates.add(name);
    seen.add(name);
    if (KNOWN.has(name)) header.index[name as KnownColumn] = i;
    else if (name.startsWith(ATTRIBUTE_PREFIX) && name.length > ATTRIBUTE_PREFIX.length)
      header.attributes.push({ traitType: name.slice(ATTRIBUTE_PREFIX.length), index: i });
    else unknown.push(name);
  });

  if (duplicates.size > 0)
    throw invalidParam('metadata', `The CSV header names a column more than once: ${list([...duplicates])}.`);
  const required: string[] = [...REQUIRED_COLUMNS, ...(hasZip ? [] : ['imageUrl'])];
  const missing = required.filter((c) => !seen.has(c));
  if (missing.length > 0) {
    const why =
      !hasZip && missing.includes('imageUrl') ? ' (imageUrl is required when no images ZIP is uploaded)' : '';
    const hint =
      names.length === 1 && names[0]!.includes(';')
        ? ' The header looks semicolon-separated; save the file with commas as separators.'
        : '';
    throw invalidParam(
      'metadata',
      `The CSV file is missing required column(s): ${list(missing)}${why}. Column names are case-sensitive.${hint}`,
    );
  }
  if (unknown.length > 0)
    throw invalidParam(
      'metadata',
      `The CSV header has unknown column(s): ${list(unknown)}. Accepted columns: ${list([...KNOWN])} and ` +
        `${ATTRIBUTE_PREFIX}<Name> for custom attributes; names are case-sensitive.`,
    );
  if (header.attributes.length > MAX_ATTRIBUTE_COLUMNS)
    throw invalidParam('metadata', `The CSV file has more than ${MAX_ATTRIBUTE_COLUMNS} attribute columns.`);
  const long = header.attributes.find((a) => a.traitType.length > MAX_ATTRIBUTE_NAME_LENGTH);
  if (long)
    throw invalidParam(
      'metadata',
      `The attribute column "${ATTRIBUTE_PREFIX}${long.traitType.slice(0, 40)}…" has a name longer than ` +
        `${MAX_ATTRIBUTE_NAME_LENGTH} characters.`,
    );
  return header;
}
