// The results download and the template (spec › Bulk mint job, CSV form): column order,
// RFC 4180 quoting that reads back exactly, formula-injection neutralising, and a template
// the CSV reader itself accepts.
import { describe, expect, it } from '@jest/globals';
import { parse } from 'csv-parse/sync';
import { parseCsv, type ParsedRow } from '../src/domain/csv.js';
import {
  neutraliseCell,
  RESULT_COLUMNS,
  resultCsvHeader,
  resultCsvLine,
  TEMPLATE_COLUMNS,
  templateCsv,
} from '../src/domain/export.js';

const readBack = (text: string): string[][] => parse(text, { bom: true });

describe('neutraliseCell', () => {
  it.each(['=1+1', '+1', '-2', '@SUM(A1)', '\t=1', '\r=1', '=HYPERLINK("http://evil","x")'])(
    'prefixes %j with an apostrophe so spreadsheets show it as text',
    (v) => {
      expect(neutraliseCell(v)).toBe(`'${v}`);
    },
  );

  it.each(['Watch', 'a=b', 'jane@example.com', '', "'quoted"])('leaves %j unchanged', (v) => {
    expect(neutraliseCell(v)).toBe(v);
  });
});

describe('results CSV', () => {
  it('has the spec columns in the spec order, CRLF-terminated', () => {
    expect(resultCsvHeader()).toBe(
      'row,name,status,certificateId,voucherId,referenceNumber,recipientEmail,error\r\n',
    );
    expect(readBack(resultCsvHeader())[0]).toEqual([...RESULT_COLUMNS]);
  });

  it('writes cells in column order whatever the key order; missing and null cells are empty', () => {
    const line = resultCsvLine({ error: null, status: 'success', row: 3, name: 'Watch', voucherId: 'v_1' });
    expect(readBack(line)).toEqual([['3', 'Watch', 'success', '', 'v_1', '', '', '']]);
  });

  it('quotes commas, quotes and newlines so every cell reads back exactly', () => {
    const name = 'Watch, "Limited"\nEdition';
    const error = 'recipientEmail "a,b" is not valid; name is required';
    expect(readBack(resultCsvLine({ row: 1, name, status: 'failed', error }))[0]).toEqual([
      '1',
      name,
      'failed',
      '',
      '',
      '',
      '',
      error,
    ]);
  });

  it('neutralises customer text (a formula name or error) but not numbers', () => {
    const [cells] = readBack(
      resultCsvLine({ row: -1, name: '=cmd|"/c calc"!A1', recipientEmail: '@x', status: 'failed' }),
    );
    expect(cells).toEqual(['-1', `'=cmd|"/c calc"!A1`, 'failed', '', '', '', `'@x`, '']);
  });

  it('writes a 50,000-row file line by line that reads back to the same rows', () => {
    let text = resultCsvHeader();
    for (let i = 1; i <= 50_000; i++) text += resultCsvLine({ row: i, name: `N${i}`, status: 'success' });
    const rows = readBack(text);
    expect(rows).toHaveLength(50_001);
    expect(rows[50_000]).toEqual(['50000', 'N50000', 'success', '', '', '', '', '']);
  });
});

describe('templateCsv', () => {
  it('has every accepted column and exactly one example row', () => {
    const rows = readBack(templateCsv());
    expect(rows[0]).toEqual([...TEMPLATE_COLUMNS]);
    expect(TEMPLATE_COLUMNS).toEqual(
      expect.arrayContaining([
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
      ]),
    );
    expect(rows).toHaveLength(2);
  });

  it('is accepted by the CSV reader as one valid row, attributes included', async () => {
    const rows: ParsedRow[] = [];
    for await (const r of parseCsv(Buffer.from(templateCsv()), { hasZip: false, maxRows: 10 })) rows.push(r);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      ok: true,
      value: {
        expiryDays: 30,
        attributes: [
          { trait_type: 'Color', value: 'Silver' },
          { trait_type: 'Size', value: '42 mm' },
        ],
      },
    });
  });
});
