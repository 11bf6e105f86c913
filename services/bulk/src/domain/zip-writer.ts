// A ZIP written as it is read: entries go in one by one, whole (each a buffer in hand), and
// come out as chunks of at most CHUNK bytes; only the central directory is kept until the
// end (its records packed side by side, ~110 bytes an entry: ~5.5 MB for 50,000).
//
// Why not yazl: it deflates every added buffer on its own zlib stream at once (~256 KB of
// native state each), writes its output to a stream that ignores backpressure, keeps every
// entry object (with its compressed bytes, a slice of a 16 KB zlib buffer) until the end,
// and finds the next entry to write by a scan from the list's start (quadratic). Here the
// entry is compressed synchronously with a window sized to it, copied into the chunk and
// dropped, so memory is one chunk, one entry and the directory however many entries there are.
//
// Format: PKWARE APPNOTE 6.3. Sizes and CRC are known before the local header is written (no
// data descriptors). Names are UTF-8 (flag bit 11). Zip64 where the classic fields overflow:
// an entry starting past 4 GiB gets the zip64 extra field in its directory record, and a
// directory of ≥ 65,535 entries or past 4 GiB gets the zip64 end records.
import { crc32, deflateRawSync, inflateRawSync } from 'node:zlib';

/** Bytes per chunk handed out (one gRPC message each downstream). */
export const ZIP_CHUNK = 64 * 1024;

const LOCAL_HEADER = 0x04034b50;
const CENTRAL_HEADER = 0x02014b50;
const ZIP64_END = 0x06064b50;
const ZIP64_LOCATOR = 0x07064b50;
const END = 0x06054b50;
const UTF8_NAMES = 0x0800;
const STORE = 0;
const DEFLATE = 8;
const VERSION_NEEDED = 20;
const VERSION_NEEDED_ZIP64 = 45;
const VERSION_MADE_BY = (3 << 8) | 63; // Unix, APPNOTE 6.3
const FILE_MODE = 0o100644;
const U16 = 0xffff;
const U32 = 0xffffffff;

export interface ZipEntryOptions {
  /** false for bytes already compressed (images): stored as they are. */
  compress: boolean;
}

/** DOS date and time (local fields read as UTC: the same bytes wherever it is made). */
function dosDateTime(d: Date): { date: number; time: number } {
  const year = Math.max(1980, d.getUTCFullYear());
  return {
    date: ((year - 1980) << 9) | ((d.getUTCMonth() + 1) << 5) | d.getUTCDate(),
    time: (d.getUTCHours() << 11) | (d.getUTCMinutes() << 5) | (d.getUTCSeconds() >> 1),
  };
}

/**
 * Deflates a whole entry at once. zlib's defaults (a 32 KB window, memLevel 8) set up ~256 KB
 * of state per call, zeroed, which cost more than compressing a 700-byte JSON (~280 µs a
 * call, 14 s of CPU for 50,000). Up to 64 KB, the window is sized to the entry (the same
 * matches for input shorter than it) and memLevel 3 (a 1,024-entry hash, plenty for such an
 * input): the same bytes out for our JSON, ~20 KB of state and a fifth of the time.
 */
function deflate(data: Buffer): Buffer {
  if (data.length > 64 * 1024) return deflateRawSync(data, { level: 6 });
  return deflateRawSync(data, {
    level: 6,
    windowBits: Math.min(15, Math.max(9, Math.ceil(Math.log2(data.length + 262)))),
    memLevel: 3,
    // One output buffer (deflate grows stored input by 5 bytes per block at worst).
    chunkSize: data.length + 64,
  });
}

/** A buffer reused from call to call, grown when a larger one is needed. */
class Scratch {
  private buf = Buffer.allocUnsafeSlow(4096);

  of(size: number): Buffer {
    if (size > this.buf.length) this.buf = Buffer.allocUnsafeSlow(2 ** Math.ceil(Math.log2(size)));
    return this.buf;
  }
}

/**
 * Small buffers copied side by side into a 64 KB slab, each full slab kept deflated (the
 * central directory: its records, names and all, deflate to about a third).
 */
class Packed {
  private readonly full: Buffer[] = [];
  private slab = Buffer.allocUnsafeSlow(64 * 1024);
  private used = 0;
  size = 0;

  append(b: Buffer): void {
    if (this.used + b.length > this.slab.length) {
      this.full.push(deflateRawSync(this.slab.subarray(0, this.used), { level: 1 }));
      if (b.length > this.slab.length) this.slab = Buffer.allocUnsafeSlow(b.length);
      this.used = 0;
    }
    this.used += b.copy(this.slab, this.used);
    this.size += b.length;
  }

  /** The bytes appended, in order, a slab at a time (inflated one by one). */
  *parts(): Generator<Buffer> {
    for (const deflated of this.full) yield inflateRawSync(deflated);
    yield this.slab.subarray(0, this.used);
  }
}

export class ZipWriter {
  private readonly directory = new Packed();
  private readonly date: number;
  private readonly time: number;
  private entries = 0;
  /** Bytes handed out so far plus those waiting in `chunk`: where the next byte goes. */
  private offset = 0;
  private chunk = Buffer.allocUnsafe(ZIP_CHUNK);
  private used = 0;
  private ready: Buffer[] = [];
  private ended = false;
  private readonly head = new Scratch();
  private readonly text = new Scratch();

  /** `modified`: the date every entry carries. */
  constructor(modified: Date) {
    ({ date: this.date, time: this.time } = dosDateTime(modified));
  }

  /**
   * Adds one file; its bytes are in the chunks `take` answers from now on. A string is the
   * UTF-8 text of the file (encoded into a buffer reused from entry to entry).
   */
  add(name: string, content: Buffer | string, opts: ZipEntryOptions): void {
    if (this.ended) throw new Error('ZIP already ended');
    const nameLength = Buffer.byteLength(name, 'utf8');
    if (nameLength > U16) throw new Error(`ZIP entry name too long: ${name.slice(0, 80)}`);
    let data = content as Buffer;
    if (typeof content === 'string') {
      const text = this.text.of(Buffer.byteLength(content, 'utf8'));
      data = text.subarray(0, text.write(content, 0, 'utf8'));
    }
    const crc = crc32(data);
    let body = data;
    let method = STORE;
    if (opts.compress) {
      const deflated = deflate(data);
      // Deflate that does not shrink the bytes is stored instead (readers need no inflater).
      if (deflated.length < data.length) [body, method] = [deflated, DEFLATE];
    }
    if (body.length >= U32 || data.length >= U32)
      throw new Error(`ZIP entry too large: ${name.slice(0, 80)}`);
    const offset = this.offset;

    // Headers are built in a reused buffer and copied out: no allocation per entry.
    const local = this.head.of(30 + nameLength);
    local.writeUInt32LE(LOCAL_HEADER, 0);
    local.writeUInt16LE(VERSION_NEEDED, 4);
    local.writeUInt16LE(UTF8_NAMES, 6);
    local.writeUInt16LE(method, 8);
    local.writeUInt16LE(this.time, 10);
    local.writeUInt16LE(this.date, 12);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(body.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(nameLength, 26);
    local.writeUInt16LE(0, 28);
    local.write(name, 30, 'utf8');
    this.write(local.subarray(0, 30 + nameLength), true);
    // Text stored as it is still sits in the reused buffer: copied out.
    this.write(body, typeof content === 'string' && method === STORE);

    const zip64 = offset >= U32;
    const size = 46 + nameLength + (zip64 ? 28 : 0);
    const record = this.head.of(size);
    record.writeUInt32LE(CENTRAL_HEADER, 0);
    record.writeUInt16LE(VERSION_MADE_BY, 4);
    record.writeUInt16LE(zip64 ? VERSION_NEEDED_ZIP64 : VERSION_NEEDED, 6);
    record.writeUInt16LE(UTF8_NAMES, 8);
    record.writeUInt16LE(method, 10);
    record.writeUInt16LE(this.time, 12);
    record.writeUInt16LE(this.date, 14);
    record.writeUInt32LE(crc, 16);
    // With the zip64 field, every classic size/offset field points to it (as yazl writes it).
    record.writeUInt32LE(zip64 ? U32 : body.length, 20);
    record.writeUInt32LE(zip64 ? U32 : data.length, 24);
    record.writeUInt16LE(nameLength, 28);
    record.writeUInt16LE(zip64 ? 28 : 0, 30);
    record.writeUInt16LE(0, 32); // comment length
    record.writeUInt16LE(0, 34); // disk number
    record.writeUInt16LE(0, 36); // internal attributes
    record.writeUInt32LE((FILE_MODE << 16) >>> 0, 38);
    record.writeUInt32LE(zip64 ? U32 : offset, 42);
    record.write(name, 46, 'utf8');
    if (zip64) {
      const extra = 46 + nameLength;
      record.writeUInt16LE(0x0001, extra);
      record.writeUInt16LE(24, extra + 2);
      record.writeBigUInt64LE(BigInt(data.length), extra + 4);
      record.writeBigUInt64LE(BigInt(body.length), extra + 12);
      record.writeBigUInt64LE(BigInt(offset), extra + 20);
    }
    this.directory.append(record.subarray(0, size));
    this.entries++;
  }

  /** The full chunks made so far (each handed out once). */
  take(): Buffer[] {
    const out = this.ready;
    this.ready = [];
    return out;
  }

  /** Writes the central directory and the end records; answers every chunk not yet taken. */
  end(): Buffer[] {
    if (this.ended) throw new Error('ZIP already ended');
    this.ended = true;
    const directoryOffset = this.offset;
    for (const part of this.directory.parts()) this.write(part);
    const directorySize = this.directory.size;
    const zip64 = this.entries >= U16 || directoryOffset >= U32 || directorySize >= U32;
    if (zip64) {
      const zip64EndOffset = this.offset;
      const record = Buffer.alloc(56);
      record.writeUInt32LE(ZIP64_END, 0);
      record.writeBigUInt64LE(44n, 4); // the record's size after this field
      record.writeUInt16LE(VERSION_MADE_BY, 12);
      record.writeUInt16LE(VERSION_NEEDED_ZIP64, 14);
      record.writeUInt32LE(0, 16); // this disk
      record.writeUInt32LE(0, 20); // the directory's disk
      record.writeBigUInt64LE(BigInt(this.entries), 24);
      record.writeBigUInt64LE(BigInt(this.entries), 32);
      record.writeBigUInt64LE(BigInt(directorySize), 40);
      record.writeBigUInt64LE(BigInt(directoryOffset), 48);
      this.write(record);
      const locator = Buffer.alloc(20);
      locator.writeUInt32LE(ZIP64_LOCATOR, 0);
      locator.writeUInt32LE(0, 4);
      locator.writeBigUInt64LE(BigInt(zip64EndOffset), 8);
      locator.writeUInt32LE(1, 16); // disks in all
      this.write(locator);
    }
    const end = Buffer.alloc(22);
    end.writeUInt32LE(END, 0);
    end.writeUInt16LE(0, 4);
    end.writeUInt16LE(0, 6);
    end.writeUInt16LE(zip64 ? U16 : this.entries, 8);
    end.writeUInt16LE(zip64 ? U16 : this.entries, 10);
    end.writeUInt32LE(zip64 ? U32 : directorySize, 12);
    end.writeUInt32LE(zip64 ? U32 : directoryOffset, 16);
    end.writeUInt16LE(0, 20);
    this.write(end);
    this.flush();
    return this.take();
  }

  /**
   * Copies bytes into the current chunk, handing it out each time it fills. Bytes of a chunk's
   * size or more (an image) are handed out as slices of their own, not copied, unless they
   * are to be copied (in a buffer of ours reused for the next entry).
   */
  private write(b: Buffer, copy = false): void {
    this.offset += b.length;
    if (b.length >= ZIP_CHUNK && !copy) {
      this.flush();
      for (let i = 0; i < b.length; i += ZIP_CHUNK) this.ready.push(b.subarray(i, i + ZIP_CHUNK));
      return;
    }
    let from = 0;
    while (from < b.length) {
      const n = b.copy(this.chunk, this.used, from);
      from += n;
      this.used += n;
      if (this.used === this.chunk.length) this.flush();
    }
  }

  private flush(): void {
    if (this.used === 0) return;
    this.ready.push(this.used === this.chunk.length ? this.chunk : this.chunk.subarray(0, this.used));
    this.chunk = Buffer.allocUnsafe(ZIP_CHUNK);
    this.used = 0;
  }
}
