// Streamed reading of the CSV form's `metadata` file (spec › Bulk mint job, CSV form;
// Limits 5). Bytes flow in 64 KiB pieces through a gate (size cap, binary sniffing, strict
// UTF-8) into csv-parse's stream API, and rows are validated and yielded one at a time, so
// memory stays flat whatever the row count: nothing here keeps the rows.
//
// File-level problems throw parameter_invalid on `metadata`. Header problems throw before
// the first row is yielded; a too-long file, bytes that are not UTF-8 text or broken quoting
// further down can only be seen while streaming and throw then. Callers consume the whole
// generator before creating a job (inside one transaction), so a late throw still refuses
// the upload before a job exists. Row-level problems never throw: they are `ok: false` rows.
import { invalidParam, HallmarkError } from '@hallmark/kit/errors';
import { CsvError, parse } from 'csv-parse';
import { Readable, Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { readHeader } from './csv-header.js';
import { validateRow, type ParsedRow } from './csv-row.js';

export { REQUIRED_COLUMNS } from './csv-header.js';
export type { CsvRow, ParsedRow } from './csv-row.js';

export interface CsvOptions {
  hasZip: boolean;
  /** Most data rows one file may hold (50,000). */
  maxRows: number;
}

export const CSV_MAX_BYTES = 10 * 1024 * 1024;
const PIECE_BYTES = 64 * 1024;
/** One record (all its cells) may not exceed this; bounds the damage of an unclosed quote. */
const MAX_RECORD_CHARS = 256 * 1024;

export function checkCsvSize(bytes: number): void {
  if (bytes > CSV_MAX_BYTES)
    throw invalidParam(
      'metadata',
      `The CSV file is larger than 10 MB (${(bytes / 1024 / 1024).toFixed(1)} MB); split it into several jobs.`,
    );
}

/**
 * Yields one ParsedRow per data row. `row` is the 1-based number of the record after the
 * header: the first line below the header is row 1, and so on (a quoted cell spanning lines
 * is still one record). Records whose cells are all blank (empty lines, a spreadsheet's
 * trailing `,,,`) are skipped but keep their number, so row numbers match the file's lines.
 */
export async function* parseCsv(
  input: Buffer | NodeJS.ReadableStream,
  opts: CsvOptions,
): AsyncGenerator<ParsedRow> {
  const source = Buffer.isBuffer(input) ? Readable.from(pieces(input)) : input;
  const parser = parse({
    bom: true,
    relax_column_count: true,
    relax_quotes: true,
    skip_empty_lines: false,
    max_record_size: MAX_RECORD_CHARS,
  });
  // Errors surface through the parser's iterator; this promise only has to be observed.
  const piping = pipeline(source, new TextGate(), parser).catch(() => undefined);
  let header: ReturnType<typeof readHeader> | undefined;
  let record = 0;
  let rows = 0;
  try {
    for await (const cells of parser as AsyncIterable<string[]>) {
      if (!header) {
        header = readHeader(cells, opts.hasZip);
        continue;
      }
      record += 1;
      if (cells.every((c) => c.trim() === '')) continue;
      rows += 1;
      if (rows > opts.maxRows)
        throw invalidParam(
          'metadata',
          `The CSV file has more than ${opts.maxRows} data rows, the most one job accepts; split it into several files.`,
        );
      yield validateRow(record, cells, header, opts.hasZip);
    }
  } catch (err) {
    throw asUploadError(err);
  } finally {
    parser.destroy();
    await piping;
  }
  if (!header) throw invalidParam('metadata', 'The CSV file is empty.');
  if (rows === 0) throw invalidParam('metadata', 'The CSV file has a header row but no data rows.');
}

function* pieces(buf: Buffer): Generator<Buffer> {
  for (let at = 0; at < buf.length; at += PIECE_BYTES) yield buf.subarray(at, at + PIECE_BYTES);
}

function asUploadError(err: unknown): unknown {
  if (err instanceof HallmarkError) return err;
  if (err instanceof CsvError) {
    const line = typeof err.lines === 'number' ? ` near line ${err.lines}` : '';
    const what =
      err.code === 'CSV_MAX_RECORD_SIZE'
        ? `a row is longer than ${MAX_RECORD_CHARS / 1024} KB (is a quote left open?)`
        : err.code === 'CSV_QUOTE_NOT_CLOSED'
          ? 'a quoted cell is never closed'
          : err.message.replace(/\.$/, '');
    return invalidParam('metadata', `The CSV file could not be parsed${line}: ${what}.`);
  }
  return err;
}

/** Leading bytes of file kinds customers upload by mistake. */
const SIGNATURES: [Buffer, string][] = [
  [Buffer.from('PK\x03\x04', 'latin1'), 'a ZIP archive (an Excel .xlsx workbook is one); export it as CSV'],
  [Buffer.from('%PDF'), 'a PDF document'],
  [Buffer.from([0xd0, 0xcf, 0x11, 0xe0]), 'an Excel .xls workbook; export it as CSV'],
  [Buffer.from([0x1f, 0x8b]), 'a gzip archive'],
  [Buffer.from([0x89, 0x50, 0x4e, 0x47]), 'a PNG image'],
  [Buffer.from([0xff, 0xd8, 0xff]), 'a JPEG image'],
  [Buffer.from([0xff, 0xfe]), 'UTF-16 text; save it as CSV UTF-8'],
  [Buffer.from([0xfe, 0xff]), 'UTF-16 text; save it as CSV UTF-8'],
];

/**
 * Bytes in, text out: refuses more than CSV_MAX_BYTES, known binary signatures at the start,
 * NUL bytes anywhere and anything that is not UTF-8 (a BOM is dropped).
 */
class TextGate extends Transform {
  private bytes = 0;
  private readonly decoder = new TextDecoder('utf-8', { fatal: true });

  constructor() {
    super({ decodeStrings: true, readableObjectMode: false });
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    try {
      if (this.bytes === 0) {
        const kind = SIGNATURES.find(([sig]) => chunk.subarray(0, sig.length).equals(sig))?.[1];
        if (kind) throw invalidParam('metadata', `The metadata file is not a CSV file: it is ${kind}.`);
      }
      this.bytes += chunk.length;
      checkCsvSize(this.bytes);
      if (chunk.includes(0))
        throw invalidParam(
          'metadata',
          'The metadata file is not a CSV file: it contains binary data (NUL bytes).',
        );
      done(null, this.decode(chunk, true));
    } catch (err) {
      done(err as Error);
    }
  }

  override _flush(done: TransformCallback): void {
    try {
      done(null, this.decode(undefined, false));
    } catch (err) {
      done(err as Error);
    }
  }

  private decode(chunk: Buffer | undefined, stream: boolean): string {
    try {
      return this.decoder.decode(chunk, { stream });
    } catch {
      throw invalidParam(
        'metadata',
        `The CSV file is not UTF-8 text (an invalid byte sequence within the first ${this.bytes} bytes); ` +
          'save it as "CSV UTF-8".',
      );
    }
  }
}
