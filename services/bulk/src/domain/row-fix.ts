// Fixing one row of a CSV job in place (PATCH /api/bulk-mint/:jobId/items/:row): the row's
// current cells with the corrected fields laid over them, validated by the very rule an
// upload's row goes through (validateRow), so a fix can never let in what an upload would
// refuse. Pure.
import { HallmarkError, invalidParam } from '@hallmark/kit/errors';
import {
  ATTRIBUTE_PREFIX,
  OPTIONAL_COLUMNS,
  REQUIRED_COLUMNS,
  type Header,
  type KnownColumn,
} from './csv-header.js';
import { validateRow, type CsvRow } from './csv-row.js';

const KNOWN = [...REQUIRED_COLUMNS, ...OPTIONAL_COLUMNS] as const;
const KNOWN_SET: ReadonlySet<string> = new Set<string>(KNOWN);

/** The cells of a stored item: an invalid row keeps its `fields`; a valid one its parsed values. */
export function cellsOfItem(
  input: Record<string, unknown>,
  contacts: { recipientEmail: string | null; recipientName: string | null },
): Record<string, string> {
  if (input.fields && typeof input.fields === 'object')
    return { ...(input.fields as Record<string, string>) };
  const out: Record<string, string> = {};
  for (const c of ['name', 'description', 'category', 'imageUrl', 'gtin', 'serial', 'passportUrl'] as const)
    if (typeof input[c] === 'string' && input[c] !== '') out[c] = input[c];
  if (typeof input.expiryDays === 'number' && input.expiryDays > 0) out.expiryDays = String(input.expiryDays);
  if (contacts.recipientEmail) out.recipientEmail = contacts.recipientEmail;
  if (contacts.recipientName) out.recipientName = contacts.recipientName;
  for (const a of (input.attributes as { trait_type: string; value: string }[] | undefined) ?? [])
    out[`${ATTRIBUTE_PREFIX}${a.trait_type}`] = a.value;
  return out;
}

/**
 * The corrected row, or a 400: an unknown field is parameter_unknown naming it; a value that
 * is not text or a number is parameter_invalid; a row the upload rule refuses is
 * parameter_invalid naming the first column at fault, with every problem in the message.
 * `null` or '' clears an optional field. `imageFile` cannot be changed by a fix (the row's
 * own, from the upload, is looked up in the job's kept ZIP images): set `imageUrl`. `keepsImage`: the row already has an image from the upload's ZIP.
 */
export function applyFix(
  row: number,
  current: Record<string, string>,
  patch: Record<string, unknown>,
  keepsImage: boolean,
): CsvRow {
  const cells = { ...current };
  for (const [field, value] of Object.entries(patch)) {
    if (!KNOWN_SET.has(field) && !field.startsWith(ATTRIBUTE_PREFIX))
      throw new HallmarkError('parameter_unknown', {
        param: field,
        message: `Unknown field '${field}': a row has ${KNOWN.join(', ')} and ${ATTRIBUTE_PREFIX}<Name>.`,
      });
    if (field === 'imageFile')
      throw invalidParam(
        'imageFile',
        "A fix keeps the row's imageFile from the upload (found in the job's kept ZIP); to use another picture set imageUrl.",
      );
    if (value === null || value === '') delete cells[field];
    else if (typeof value === 'string' || typeof value === 'number') cells[field] = String(value);
    else throw invalidParam(field, `${field} must be text or a number.`);
  }
  const columns = Object.keys(cells);
  const header: Header = { width: columns.length, index: {}, attributes: [] };
  columns.forEach((c, i) => {
    if (KNOWN_SET.has(c)) header.index[c as KnownColumn] = i;
    else header.attributes.push({ traitType: c.slice(ATTRIBUTE_PREFIX.length), index: i });
  });
  const parsed = validateRow(
    row,
    columns.map((c) => cells[c]!),
    header,
    keepsImage,
  );
  if (!parsed.ok) {
    const first = parsed.error.split(/[ ;]/)[0]!;
    throw invalidParam(
      KNOWN_SET.has(first) || first.startsWith(ATTRIBUTE_PREFIX) ? first : 'fields',
      `Row ${row}: ${parsed.error}.`,
    );
  }
  return parsed.value;
}
