// The CSV form's reader (spec › Bulk mint job, CSV form; Limits 5): what refuses the whole
// upload, what only fails a row, row numbering, encodings, and flat memory on 50,000 rows.
import { describe, expect, it } from '@jest/globals';
import { HallmarkError } from '@hallmark/kit';
import { Readable } from 'node:stream';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { checkCsvSize, CSV_MAX_BYTES, parseCsv, type CsvOptions, type ParsedRow } from '../src/domain/csv.js';

const NO_ZIP: CsvOptions = { hasZip: false, maxRows: 50_000 };
const WITH_ZIP: CsvOptions = { hasZip: true, maxRows: 50_000 };
const HEADER = 'name,description,category,recipientEmail,imageUrl';
const GOOD = 'Watch,A fine watch,Watches,jane@example.com,https://img.example.com/w.png';

async function collect(input: string | Buffer, opts = NO_ZIP): Promise<ParsedRow[]> {
  const rows: ParsedRow[] = [];
  for await (const r of parseCsv(typeof input === 'string' ? Buffer.from(input) : input, opts)) rows.push(r);
  return rows;
}

/** The refusal of the whole file: a parameter_invalid on `metadata`, by message. */
async function refusal(input: string | Buffer, opts = NO_ZIP): Promise<string> {
  try {
    await collect(input, opts);
  } catch (err) {
    expect(err).toBeInstanceOf(HallmarkError);
    expect(err).toMatchObject({ code: 'parameter_invalid', param: 'metadata' });
    return (err as Error).message;
  }
  throw new Error('expected the file to be refused');
}

const errorOf = async (line: string, header = HEADER, opts = NO_ZIP) => {
  const [row] = await collect(`${header}\n${line}\n`, opts);
  return row && !row.ok ? row.error : null;
};

describe('parseCsv: accepted files', () => {
  it('yields typed rows with attributes, the expiryDays default and optional columns', async () => {
    const rows = await collect(
      'name,description,category,recipientEmail,recipientName,imageUrl,expiryDays,attribute_Color,attribute_Size\n' +
        'Watch,A watch,Watches,jane@example.com,Jane,https://x.example/a.png,,  Silver  ,\n' +
        'Ring,A ring,Rings,bob@example.org,,https://x.example/b.png,365,Gold,7\n',
    );
    expect(rows).toEqual([
      {
        row: 1,
        ok: true,
        value: {
          row: 1,
          name: 'Watch',
          description: 'A watch',
          category: 'Watches',
          recipientEmail: 'jane@example.com',
          recipientName: 'Jane',
          imageUrl: 'https://x.example/a.png',
          expiryDays: 30,
          attributes: [{ trait_type: 'Color', value: 'Silver' }],
        },
      },
      {
        row: 2,
        ok: true,
        value: {
          row: 2,
          name: 'Ring',
          description: 'A ring',
          category: 'Rings',
          recipientEmail: 'bob@example.org',
          imageUrl: 'https://x.example/b.png',
          expiryDays: 365,
          attributes: [
            { trait_type: 'Color', value: 'Gold' },
            { trait_type: 'Size', value: '7' },
          ],
        },
      },
    ]);
  });

  it('handles a UTF-8 BOM, CRLF line ends, quoted commas and quoted newlines', async () => {
    const csv = `\uFEFF${HEADER}\r\n"Watch, steel","Line one\r\nline two",Watches,jane@example.com,https://x.example/a.png\r\n`;
    const [row] = await collect(csv);
    expect(row).toMatchObject({
      ok: true,
      value: { name: 'Watch, steel', description: 'Line one\r\nline two' },
    });
  });

  it('numbers rows from 1 below the header; blank lines are skipped but keep their number', async () => {
    const csv = `${HEADER}\n${GOOD}\n\n,,,,\n"Multi\nline",d,c,a@example.com,https://x.example/a.png\n${GOOD}\n`;
    expect((await collect(csv)).map((r) => r.row)).toEqual([1, 4, 5]);
  });

  it('accepts a stray quote inside an unquoted cell (12" vinyl)', async () => {
    const [row] = await collect(`${HEADER}\nRecord,12" vinyl,Music,a@example.com,https://x.example/a.png\n`);
    expect(row).toMatchObject({ ok: true, value: { description: '12" vinyl' } });
  });

  it('reads a stream the same way as a buffer', async () => {
    const text = `${HEADER}\n${GOOD}\n${GOOD}\n`;
    const rows: ParsedRow[] = [];
    const stream = Readable.from([Buffer.from(text.slice(0, 7)), Buffer.from(text.slice(7))]);
    for await (const r of parseCsv(stream, NO_ZIP)) rows.push(r);
    expect(rows).toEqual(await collect(text));
  });

  it('with an images ZIP, imageUrl is neither a required column nor a required cell', async () => {
    const rows = await collect(
      'name,description,category,recipientEmail,imageFile\nW,d,c,a@example.com,\nR,d,c,b@example.com,R.PNG\n',
      WITH_ZIP,
    );
    expect(rows.map((r) => r.ok)).toEqual([true, true]);
    expect(rows[1]).toMatchObject({ value: { imageFile: 'R.PNG' } });
  });
});

describe('parseCsv: refusing the whole file before any row', () => {
  it('refuses an empty file, a header with no rows, and a header followed by blank lines only', async () => {
    expect(await refusal('')).toMatch(/empty/);
    expect(await refusal(`${HEADER}\n`)).toMatch(/no data rows/);
    expect(await refusal(`${HEADER}\n\n,,,,\n`)).toMatch(/no data rows/);
  });

  it('names every missing required column; imageUrl is required only without a ZIP', async () => {
    const msg = await refusal('description,recipientEmail\nd,a@example.com\n');
    for (const c of ['"name"', '"category"', '"imageUrl"']) expect(msg).toContain(c);
    expect(await refusal('name,description,category,recipientEmail\nW,d,c,a@example.com\n')).toMatch(
      /"imageUrl".*no images ZIP/,
    );
    await expect(
      collect('name,description,category,recipientEmail\nW,d,c,a@example.com\n', WITH_ZIP),
    ).resolves.toHaveLength(1);
  });

  it('treats column names case-sensitively', async () => {
    expect(
      await refusal(
        'Name,description,category,recipientEmail,imageUrl\nW,d,c,a@example.com,https://x.example/a\n',
      ),
    ).toMatch(/missing required column\(s\): "name"/);
  });

  it('refuses duplicate and unknown column names, naming them', async () => {
    expect(await refusal(`${HEADER},category\n${GOOD},x\n`)).toMatch(/more than once: "category"/);
    expect(await refusal(`${HEADER},ExpiryDays\n${GOOD},365\n`)).toMatch(/unknown column\(s\): "ExpiryDays"/);
  });

  it('hints at semicolon-separated files', async () => {
    expect(await refusal('name;description;category;recipientEmail;imageUrl\na;b;c;d;e\n')).toMatch(
      /semicolon/,
    );
  });

  it('refuses binary files: NUL bytes, ZIP (xlsx) and PDF signatures, UTF-16', async () => {
    expect(await refusal(Buffer.from(`${HEADER}\n${GOOD}\0\n`))).toMatch(/binary data/);
    expect(await refusal(Buffer.from('PK\x03\x04\x14\x00rest-of-a-workbook', 'latin1'))).toMatch(
      /ZIP archive/,
    );
    expect(await refusal(Buffer.from('%PDF-1.7 ...'))).toMatch(/PDF/);
    expect(await refusal(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(HEADER, 'utf16le')]))).toMatch(
      /UTF-16/,
    );
  });

  it('refuses text that is not UTF-8 (a Latin-1 export) instead of garbling names', async () => {
    expect(
      await refusal(Buffer.from(`${HEADER}\nJos\xe9,d,c,a@example.com,https://x.example/a\n`, 'latin1')),
    ).toMatch(/not UTF-8/);
  });

  it('refuses a file whose quoting is broken, with the line', async () => {
    expect(
      await refusal(`${HEADER}\n${GOOD}\n"never closed,d,c,a@example.com,https://x.example/a\n`),
    ).toMatch(/could not be parsed.*quoted cell is never closed/);
  });

  it('refuses more than maxRows data rows, stating the limit; exactly maxRows is accepted', async () => {
    const three = `${HEADER}\n${GOOD}\n${GOOD}\n${GOOD}\n`;
    await expect(collect(three, { hasZip: false, maxRows: 3 })).resolves.toHaveLength(3);
    expect(await refusal(`${three}${GOOD}\n`, { hasZip: false, maxRows: 3 })).toMatch(
      /more than 3 data rows/,
    );
  });

  it('checkCsvSize refuses more than 10 MB; a stream passing 10 MB is refused while reading', async () => {
    expect(() => checkCsvSize(CSV_MAX_BYTES)).not.toThrow();
    expect(() => checkCsvSize(CSV_MAX_BYTES + 1)).toThrow(/larger than 10 MB/);
    // 100 KB rows: cheap to parse, so the test is about the byte cap, not the parser.
    const line = Buffer.from(`W,${'d'.repeat(100 * 1024)},c,a@example.com,https://x.example/a\n`);
    let sent = 0;
    const big = Readable.from(
      (function* () {
        yield Buffer.from(`${HEADER}\n`);
        for (; sent < 3 * CSV_MAX_BYTES; sent += line.length) yield line;
      })(),
    );
    await expect(collect(big as unknown as Buffer, { hasZip: false, maxRows: 10_000_000 })).rejects.toThrow(
      /larger than 10 MB/,
    );
    expect(sent).toBeLessThan(CSV_MAX_BYTES + 4 * 1024 * 1024); // stopped reading near the cap
  });
});

describe('parseCsv: row problems fail the row, never the file', () => {
  it.each([
    ['an empty required cell', ',d,c,a@example.com,https://x.example/a', 'name is required'],
    [
      'an invalid e-mail',
      'W,d,c,jane@,https://x.example/a',
      'recipientEmail "jane@" is not a valid e-mail address',
    ],
    [
      'an http imageUrl',
      'W,d,c,a@example.com,http://x.example/a',
      'imageUrl "http://x.example/a" must be an HTTPS URL',
    ],
    [
      'a missing imageUrl without a ZIP',
      'W,d,c,a@example.com,',
      'imageUrl is required when no images ZIP is uploaded',
    ],
    [
      'a name over 200 characters',
      `${'n'.repeat(201)},d,c,a@example.com,https://x.example/a`,
      'name is longer than 200',
    ],
    [
      'a description over 2000 characters',
      `W,${'d'.repeat(2001)},c,a@example.com,https://x.example/a`,
      'description is longer than 2000',
    ],
    ['too few cells', 'W,d,c,a@example.com', 'the row has 4 cell(s) but the header has 5 column(s)'],
    ['too many cells', `${GOOD},extra`, 'the row has 6 cell(s) but the header has 5 column(s)'],
  ])('%s', async (_what, line, error) => {
    expect(await errorOf(line)).toContain(error);
  });

  it.each(['0', '-1', '3651', '1.5', 'abc', '30 days'])(
    'expiryDays %j is refused; 1 and 3650 are accepted',
    async (v) => {
      const header = `${HEADER},expiryDays`;
      expect(await errorOf(`${GOOD},${v}`, header)).toMatch(
        /expiryDays .* must be a whole number of days from 1 to 3650/,
      );
      expect(await errorOf(`${GOOD},1`, header)).toBeNull();
      expect(await errorOf(`${GOOD},3650`, header)).toBeNull();
    },
  );

  it('imageFile without a ZIP fails the row', async () => {
    expect(await errorOf(`${GOOD},1.png`, `${HEADER},imageFile`)).toContain('no images ZIP was uploaded');
  });

  it('reports every problem of a row at once and keeps name, e-mail and its cells (for a fix in place)', async () => {
    const rows = await collect(`${HEADER}\nWatch,,c,not-an-email,ftp://x\n${GOOD}\n`);
    expect(rows[0]).toEqual({
      row: 1,
      ok: false,
      name: 'Watch',
      recipientEmail: 'not-an-email',
      fields: { name: 'Watch', category: 'c', recipientEmail: 'not-an-email', imageUrl: 'ftp://x' },
      error:
        'description is required; recipientEmail "not-an-email" is not a valid e-mail address; ' +
        'imageUrl "ftp://x" must be an HTTPS URL',
    });
    expect(rows[1]).toMatchObject({ row: 2, ok: true });
  });
});

describe('parseCsv: GS1 columns gtin, serial and passportUrl (docs/digital-link.md)', () => {
  const GS1_HEADER = `${HEADER},gtin,serial,passportUrl`;

  it('normalises the GTIN to 14 digits and keeps the serial and the passport link', async () => {
    const [row] = await collect(`${GS1_HEADER}\n${GOOD},9506000134352,A/1-x,https://dpp.example/p/1\n`);
    expect(row).toMatchObject({
      ok: true,
      value: { gtin: '09506000134352', serial: 'A/1-x', passportUrl: 'https://dpp.example/p/1' },
    });
    const [plain] = await collect(`${GS1_HEADER}\n${GOOD},,,\n`);
    expect(plain).toMatchObject({ ok: true });
    expect(plain?.ok && plain.value.gtin).toBeUndefined();
  });

  it('fails the row (not the file) for a bad check digit, a serial outside CSET 82, one without the other, or a non-https passport', async () => {
    expect(await errorOf(`${GOOD},09506000134353,S1,`, GS1_HEADER)).toMatch(
      /^gtin "09506000134353" has a wrong check digit/,
    );
    expect(await errorOf(`${GOOD},09506000134352,a b,`, GS1_HEADER)).toMatch(
      /serial "a b" may hold only GS1 character set 82/,
    );
    expect(await errorOf(`${GOOD},09506000134352,,`, GS1_HEADER)).toBe(
      'serial is required with a gtin (give both or neither)',
    );
    expect(await errorOf(`${GOOD},,S1,`, GS1_HEADER)).toBe(
      'gtin is required with a serial (give both or neither)',
    );
    expect(await errorOf(`${GOOD},12345,S1,`, GS1_HEADER)).toMatch(/gtin "12345" has 5 digits/);
    expect(await errorOf(`${GOOD},,,http://dpp.example/p`, GS1_HEADER)).toMatch(
      /passportUrl .* must be an HTTPS URL/,
    );
  });

  it('still refuses unknown columns, naming the GS1 ones among those accepted (a mistyped GTIN column is not ignored)', async () => {
    const message = await refusal(`${HEADER},GTIN\n${GOOD},09506000134352\n`);
    expect(message).toContain('unknown column(s): "GTIN"');
    expect(message).toContain('"gtin", "serial", "passportUrl"');
  });
});

describe('parseCsv: memory', () => {
  it('stays flat over 50,000 rows: rows are released as they are consumed', async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const head =
      'name,description,category,recipientEmail,imageUrl,expiryDays,attribute_Color,attribute_Size\n';
    const body = Array.from(
      { length: 50_000 },
      (_, i) =>
        `Certificate ${i},Description of certificate number ${i},Collectibles,user${i}@example.com,` +
        `https://img.example.com/${i}.png,365,Red ${i},XL\n`,
    ).join('');
    const csv = Buffer.from(head + body); // ~7 MB, outside the JS heap
    gc();
    const baseline = process.memoryUsage().heapUsed;
    let count = 0;
    let peak = 0;
    for await (const row of parseCsv(csv, { hasZip: false, maxRows: 50_000 })) {
      if (row.ok) count += 1;
      if (count % 10_000 === 0) {
        gc();
        peak = Math.max(peak, process.memoryUsage().heapUsed - baseline);
      }
    }
    expect(count).toBe(50_000);
    // Holding the 50,000 parsed rows would take well over 20 MB of heap.
    expect(peak).toBeLessThan(8 * 1024 * 1024);
  });
});
