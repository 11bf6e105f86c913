// One data row of the CSV form checked against the column rules (spec › Bulk mint job, CSV
// form). A bad row never refuses the upload: it becomes a failed row with every problem it
// has, so the customer can fix them all at once. Pure.
import {
  emailProblem,
  lengthProblem,
  MAX_DESCRIPTION_LENGTH,
  MAX_NAME_LENGTH,
  MAX_SHORT_TEXT_LENGTH,
  parseExpiryDays,
  urlProblem,
} from './fields.js';
import type { Header, KnownColumn } from './csv-header.js';
import { normaliseGtin, serialProblem } from '@hallmark/kit/gs1';

export const MAX_IMAGE_FILE_LENGTH = 255;

export interface CsvRow {
  row: number;
  name: string;
  description: string;
  category: string;
  recipientEmail: string;
  recipientName?: string;
  imageUrl?: string;
  /** Only when an images ZIP was uploaded; then it names the image and wins over imageUrl. */
  imageFile?: string;
  expiryDays: number;
  attributes: { trait_type: string; value: string }[];
  /** GS1 GTIN (normalised to 14 digits) and serial: both or neither (docs/digital-link.md). */
  gtin?: string;
  serial?: string;
  /** https link to the product's passport (the certificate's metadata.passportUrl). */
  passportUrl?: string;
}

export type ParsedRow =
  | { row: number; ok: true; value: CsvRow }
  | {
      row: number;
      ok: false;
      error: string;
      name?: string;
      recipientEmail?: string;
      /** The row's cells by column (known columns and attribute_<Name>), so a fix can start from them. */
      fields?: Record<string, string>;
    };

/** Shortened for quoting a customer's value back in a message. */
const quote = (v: string) => JSON.stringify(v.length > 60 ? `${v.slice(0, 57)}...` : v);

export function validateRow(row: number, cells: string[], header: Header, hasZip: boolean): ParsedRow {
  if (cells.length !== header.width)
    return {
      row,
      ok: false,
      error: `the row has ${cells.length} cell(s) but the header has ${header.width} column(s)`,
    };

  const cell = (c: KnownColumn): string => {
    const i = header.index[c];
    return i === undefined ? '' : (cells[i] ?? '').trim();
  };
  const problems: string[] = [];
  const check = (column: string, problem: string | null, value?: string) => {
    if (problem) problems.push(`${column}${value === undefined ? '' : ` ${quote(value)}`} ${problem}`);
  };
  const required = (column: KnownColumn, max: number): string => {
    const v = cell(column);
    if (v === '') problems.push(`${column} is required`);
    else check(column, lengthProblem(v, max));
    return v;
  };

  const name = required('name', MAX_NAME_LENGTH);
  const description = required('description', MAX_DESCRIPTION_LENGTH);
  const category = required('category', MAX_SHORT_TEXT_LENGTH);
  const recipientEmail = cell('recipientEmail');
  if (recipientEmail === '') problems.push('recipientEmail is required');
  else check('recipientEmail', emailProblem(recipientEmail), recipientEmail);
  const recipientName = cell('recipientName');
  check('recipientName', lengthProblem(recipientName, MAX_SHORT_TEXT_LENGTH));

  const imageUrl = cell('imageUrl');
  const imageFile = cell('imageFile');
  if (imageUrl !== '') check('imageUrl', urlProblem(imageUrl), imageUrl);
  if (!hasZip && imageFile !== '') problems.push('imageFile is set but no images ZIP was uploaded');
  else if (!hasZip && imageUrl === '') problems.push('imageUrl is required when no images ZIP is uploaded');
  check('imageFile', lengthProblem(imageFile, MAX_IMAGE_FILE_LENGTH));

  const expiry = parseExpiryDays(cell('expiryDays'));
  if ('problem' in expiry) check('expiryDays', expiry.problem, cell('expiryDays'));

  // The certificates service decides (and refuses a batch with a bad or taken one); checking
  // here too fails the row alone, with the reason, instead of its whole batch.
  const gtinCell = cell('gtin');
  const serial = cell('serial');
  let gtin = '';
  if (gtinCell !== '' || serial !== '') {
    if (gtinCell === '') problems.push('gtin is required with a serial (give both or neither)');
    if (serial === '') problems.push('serial is required with a gtin (give both or neither)');
  }
  if (gtinCell !== '') {
    const g = normaliseGtin(gtinCell);
    if ('problem' in g) check('gtin', g.problem, gtinCell);
    else gtin = g.gtin;
  }
  if (serial !== '') check('serial', serialProblem(serial), serial);
  const passportUrl = cell('passportUrl');
  if (passportUrl !== '') check('passportUrl', urlProblem(passportUrl), passportUrl);

  const attributes: CsvRow['attributes'] = [];
  for (const { traitType, index } of header.attributes) {
    const value = (cells[index] ?? '').trim();
    if (value === '') continue;
    check(`attribute_${traitType}`, lengthProblem(value, MAX_SHORT_TEXT_LENGTH));
    attributes.push({ trait_type: traitType, value });
  }

  if (problems.length > 0) {
    const fields: Record<string, string> = {};
    for (const c of Object.keys(header.index) as KnownColumn[]) if (cell(c) !== '') fields[c] = cell(c);
    for (const { traitType, index } of header.attributes) {
      const value = (cells[index] ?? '').trim();
      if (value !== '') fields[`attribute_${traitType}`] = value;
    }
    const failed: ParsedRow = { row, ok: false, error: problems.join('; '), fields };
    if (name) failed.name = name;
    if (recipientEmail) failed.recipientEmail = recipientEmail;
    return failed;
  }
  const value: CsvRow = {
    row,
    name,
    description,
    category,
    recipientEmail,
    expiryDays: 'value' in expiry ? expiry.value : 0,
    attributes,
  };
  if (recipientName) value.recipientName = recipientName;
  if (imageUrl) value.imageUrl = imageUrl;
  if (imageFile) value.imageFile = imageFile;
  if (gtin && serial) Object.assign(value, { gtin, serial });
  if (passportUrl) value.passportUrl = passportUrl;
  return { row, ok: true, value };
}
