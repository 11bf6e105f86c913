// The results ZIP as the bulk service writes it, read back by another implementation (yauzl):
// every entry comes back with its name and bytes and a matching CRC, JSON deflated and images
// stored; the output comes in chunks of at most 64 KB; an archive of more entries than the
// classic end record can count (65,535) reads back through the zip64 end records, and one
// past 4 GiB finds its last entry through the zip64 fields.
import { describe, expect, it } from '@jest/globals';
import { Readable } from 'node:stream';
import { crc32 } from 'node:zlib';
import yauzl from 'yauzl';
import { ZIP_CHUNK, ZipWriter } from '../src/domain/zip-writer.js';

interface ReadEntry {
  name: string;
  method: number;
  bytes: Buffer;
  crc: number;
  modified: Date;
}

function readBack(zip: Buffer, withBytes = true): Promise<{ entries: ReadEntry[]; count: number }> {
  return new Promise((resolve, reject) =>
    yauzl.fromBuffer(zip, { lazyEntries: true, strictFileNames: true }, (err, file) => {
      if (err) return reject(err);
      const entries: ReadEntry[] = [];
      file.on('error', reject).on('end', () => resolve({ entries, count: file.entryCount }));
      file.on('entry', (entry: yauzl.Entry) => {
        const got = (bytes: Buffer) => {
          entries.push({
            name: entry.fileName,
            method: entry.compressionMethod,
            bytes,
            crc: entry.crc32,
            modified: entry.getLastModDate({ timezone: 'UTC' }),
          });
          file.readEntry();
        };
        if (!withBytes) return got(Buffer.alloc(0));
        file.openReadStream(entry, (e, stream) => {
          if (e) return reject(e);
          const parts: Buffer[] = [];
          stream.on('error', reject);
          stream.on('data', (b: Buffer) => parts.push(b));
          stream.on('end', () => got(Buffer.concat(parts)));
        });
      });
      file.readEntry();
    }),
  );
}

/** Writes the entries, taking chunks as a reader would (after every entry). */
function write(entries: { name: string; data: Buffer | string; compress: boolean }[], modified = new Date()) {
  const zip = new ZipWriter(modified);
  const chunks: Buffer[] = [];
  for (const e of entries) {
    zip.add(e.name, e.data, { compress: e.compress });
    chunks.push(...zip.take());
  }
  chunks.push(...zip.end());
  return chunks;
}

describe('ZipWriter', () => {
  it('every entry reads back with its name, bytes and CRC; JSON (given as text) deflated, images stored', async () => {
    const json = Buffer.from(
      JSON.stringify({ row: 1, name: 'Montre No. 1 — été', tags: Array(50).fill('x') }, null, 2),
    );
    const image = Buffer.from(Array.from({ length: 200_000 }, (_, i) => (i * 7919) % 251)); // > one chunk
    const tiny = Buffer.from('{}'); // deflate would not shrink it: stored
    const modified = new Date('2026-03-04T05:06:08Z');
    const zip = Buffer.concat(
      write(
        [
          { name: 'metadata/00001-cert_a.json', data: json.toString('utf8'), compress: true },
          { name: 'images/00001-cert_a.png', data: image, compress: false },
          { name: 'metadata/00002-été.json', data: tiny, compress: true },
        ],
        modified,
      ),
    );
    const { entries } = await readBack(zip);
    expect(entries.map((e) => [e.name, e.method])).toEqual([
      ['metadata/00001-cert_a.json', 8],
      ['images/00001-cert_a.png', 0],
      ['metadata/00002-été.json', 0],
    ]);
    expect(entries[0]!.bytes.equals(json)).toBe(true);
    expect(entries[1]!.bytes.equals(image)).toBe(true);
    expect(entries[2]!.bytes.equals(tiny)).toBe(true);
    for (const e of entries) {
      expect(e.crc).toBe(crc32(e.bytes));
      expect(e.modified.toISOString()).toBe('2026-03-04T05:06:08.000Z');
    }
  });

  it('hands out chunks of at most 64 KB, each made only when taken', () => {
    const zip = new ZipWriter(new Date());
    zip.add('a.json', Buffer.from('{"a":1}'), { compress: true });
    expect(zip.take()).toEqual([]); // a few bytes: still in the open chunk
    zip.add('big.bin', Buffer.alloc(3 * ZIP_CHUNK + 5, 1), { compress: false });
    const taken = zip.take();
    expect(taken.length).toBeGreaterThanOrEqual(3);
    const rest = zip.end();
    for (const c of [...taken, ...rest]) expect(c.length).toBeLessThanOrEqual(ZIP_CHUNK);
    expect(() => zip.add('late.json', Buffer.from('{}'), { compress: true })).toThrow('ZIP already ended');
  });

  it('an archive of 70,000 entries (past the classic 65,535) reads back whole through the zip64 end records', async () => {
    const entries = Array.from({ length: 70_000 }, (_, i) => ({
      name: `metadata/${String(i + 1).padStart(5, '0')}.json`,
      data: Buffer.from(`{"row":${i + 1}}`),
      compress: false,
    }));
    const { entries: read, count } = await readBack(Buffer.concat(write(entries)), false);
    expect(count).toBe(70_000);
    expect(read).toHaveLength(70_000);
    expect(read[69_999]!.name).toBe('metadata/70000.json');
  });

  it('an archive past 4 GiB reads back: its last entry found through the zip64 fields', async () => {
    // 65 stored entries of the same 64 MiB of zeros, then a small one starting past 4 GiB.
    // Only what is not those zeros is kept; yauzl reads the rest as zeros from a reader
    // over that sparse copy of the file.
    const zeros = Buffer.alloc(64 * 1024 * 1024);
    const zip = new ZipWriter(new Date());
    const kept: { at: number; bytes: Buffer }[] = [];
    let size = 0;
    const keep = (chunks: Buffer[]) => {
      for (const c of chunks) {
        if (c.buffer !== zeros.buffer) kept.push({ at: size, bytes: Buffer.from(c) });
        size += c.length;
      }
    };
    for (let i = 0; i < 65; i++) {
      zip.add(`zeros/${i}.bin`, zeros, { compress: false });
      keep(zip.take());
    }
    const last = Buffer.from('{"row":66}');
    zip.add('metadata/00066.json', last, { compress: true });
    keep(zip.end());
    expect(size).toBeGreaterThan(2 ** 32);

    class Sparse extends yauzl.RandomAccessReader {
      override _readStreamForRange(start: number, end: number): Readable {
        const out = Buffer.alloc(end - start);
        for (const k of kept) {
          const from = Math.max(start, k.at);
          const to = Math.min(end, k.at + k.bytes.length);
          if (from < to) k.bytes.copy(out, from - start, from - k.at, to - k.at);
        }
        return Readable.from([out]);
      }
    }
    const file = await yauzl.fromRandomAccessReaderPromise(new Sparse(), size, {
      lazyEntries: true,
      autoClose: false,
    });
    const entries: yauzl.Entry[] = [];
    await new Promise<void>((resolve, reject) => {
      file.on('entry', (e: yauzl.Entry) => {
        entries.push(e);
        file.readEntry();
      });
      file.on('end', resolve).on('error', reject);
      file.readEntry();
    });
    expect(entries).toHaveLength(66);
    const after = entries[65]!;
    expect(after.fileName).toBe('metadata/00066.json');
    // The 65th entry (index 64) is the first to start past 4 GiB.
    expect(entries[63]!.relativeOffsetOfLocalHeader).toBeLessThan(2 ** 32);
    expect(entries[64]!.relativeOffsetOfLocalHeader).toBeGreaterThan(2 ** 32);
    expect(after.relativeOffsetOfLocalHeader).toBeGreaterThan(2 ** 32);
    const stream = await new Promise<Readable>((resolve, reject) =>
      file.openReadStream(after, (err, s) => (err ? reject(err) : resolve(s))),
    );
    const parts: Buffer[] = [];
    for await (const b of stream) parts.push(b as Buffer);
    expect(Buffer.concat(parts).equals(last)).toBe(true);
    file.close();
  }, 120_000);
});
