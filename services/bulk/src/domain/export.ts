// The CSV form's downloadable files (spec › Bulk mint job, CSV form; Endpoints › Bulk mint):
// the results CSV, written line by line so a 50,000-row job streams, and the template. Every
// customer-supplied cell is neutralised against formula injection (OWASP "CSV Injection"):
// spreadsheet programs run a cell starting with = + - @ (or a tab / carriage return that
// hides one) as a formula. Lines end with CRLF (RFC 4180). Pure.
import { stringify } from 'csv-stringify/sync';

export const RESULT_COLUMNS = [
  'row',
  'name',
  'status',
  'certificateId',
  'voucherId',
  'referenceNumber',
  'recipientEmail',
  'error',
] as const;
export type ResultColumn = (typeof RESULT_COLUMNS)[number];
export type ResultRecord = Partial<Record<ResultColumn, string | number | null>>;

export const TEMPLATE_COLUMNS = [
  'name',
  'description',
  'category',
  'recipientEmail',
  'recipientName',
  'imageUrl',
  'imageFile',
  'expiryDays',
  'gtin',
  'serial',
  'passportUrl',
  'attribute_Color',
  'attribute_Size',
] as const;

const TEMPLATE_EXAMPLE: Record<(typeof TEMPLATE_COLUMNS)[number], string> = {
  name: 'Limited Edition Watch #1',
  description: 'Hand-assembled automatic watch, numbered 1 of 500, with certificate of authenticity.',
  category: 'Watches',
  recipientEmail: 'jane.doe@example.com',
  recipientName: 'Jane Doe',
  imageUrl: 'https://example.com/images/watch-1.png',
  imageFile: '',
  expiryDays: '30',
  // Blank in the example: a GTIN and serial name one certificate, so an example pair would be
  // refused the second time the template is uploaded as it is (docs/digital-link.md).
  gtin: '',
  serial: '',
  passportUrl: '',
  attribute_Color: 'Silver',
  attribute_Size: '42 mm',
};

const FORMULA_START = /^[=+\-@\t\r]/;

export function neutraliseCell(v: string): string {
  return FORMULA_START.test(v) ? `'${v}` : v;
}

const line = (cells: string[]) => stringify([cells], { record_delimiter: '\r\n', quoted_match: /^\s|\s$/ });

export function resultCsvHeader(): string {
  return line([...RESULT_COLUMNS]);
}

/** Missing and null cells are empty; numbers are written as numbers, strings neutralised. */
export function resultCsvLine(r: ResultRecord): string {
  return line(
    RESULT_COLUMNS.map((c) => {
      const v = r[c];
      if (v === undefined || v === null) return '';
      return typeof v === 'number' ? String(v) : neutraliseCell(v);
    }),
  );
}

/** The header with every column the CSV form accepts and one example row. */
export function templateCsv(): string {
  return line([...TEMPLATE_COLUMNS]) + line(TEMPLATE_COLUMNS.map((c) => TEMPLATE_EXAMPLE[c]));
}
