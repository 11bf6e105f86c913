// Safe reading of the CSV form's optional `images` ZIP. The archive is hostile until proven
// otherwise: each entry is checked from the central directory (encryption, symlink, size,
// compression ratio, running total) before a byte of it is inflated, inflating stops at the
// entry cap whatever the headers claim (yauzl also checks the declared sizes), and the bytes
// must sniff as a supported image. Any problem refuses the whole upload with
// parameter_invalid on `images`, naming the entry. Entries are yielded one at a time.
import { HallmarkError, invalidParam } from '@hallmark/kit/errors';
import { hasForbiddenControl, showControls } from '@hallmark/kit/text';
import { fileTypeFromBuffer } from 'file-type';
import { createHash } from 'node:crypto';
import yauzl, { type Entry, type ZipFile } from 'yauzl';

export {
  addToImageIndex,
  imageCandidates,
  matchImage,
  newImageIndex,
  type ImageIndex,
} from './image-match.js';

export const ZIP_MAX_BYTES = 100 * 1024 * 1024;

export interface ZipLimits {
  maxEntries: number;
  maxEntryBytes: number;
  /** Uncompressed, over every image in the archive. */
  maxTotalBytes: number;
  /** Uncompressed size over compressed size, per entry. */
  maxRatio: number;
}

export const DEFAULT_ZIP_LIMITS: ZipLimits = {
  maxEntries: 60_000,
  maxEntryBytes: 10 * 1024 * 1024,
  maxTotalBytes: 200 * 1024 * 1024,
  maxRatio: 100,
};

export type ImageContentType = 'image/png' | 'image/jpeg' | 'image/webp' | 'image/gif';
export const IMAGE_CONTENT_TYPES: readonly ImageContentType[] = [
  'image/png',
  'image/jpeg',
  'image/webp',
  'image/gif',
];

export interface ZipImage {
  /** The entry's path inside the archive. */
  path: string;
  /** Lower-cased base name, e.g. `photo 1.png`. */
  key: string;
  /** Lower-cased base name without its extension, e.g. `photo 1`. */
  stem: string;
  bytes: Buffer;
  contentType: ImageContentType;
  /** Hex SHA-256 of the bytes. */
  sha256: string;
}

const S_IFMT = 0o170000;
const S_IFLNK = 0o120000;
const mb = (n: number) => `${Math.round((n / 1024 / 1024) * 10) / 10} MB`;
const refuse = (message: string) => invalidParam('images', message);

/** Directories and the clutter archivers add (`__MACOSX/`, `.DS_Store`, hidden folders, Thumbs.db). */
export function isJunkEntry(path: string): boolean {
  if (path.endsWith('/')) return true;
  const parts = path.split('/');
  if (parts[0] === '__MACOSX') return true;
  const base = parts.at(-1)!.toLowerCase();
  return parts.some((p) => p.startsWith('.')) || base === 'thumbs.db' || base === 'desktop.ini';
}

export function imageKeys(path: string): { key: string; stem: string } {
  const key = path.split('/').at(-1)!.toLowerCase();
  const dot = key.lastIndexOf('.');
  return { key, stem: dot > 0 ? key.slice(0, dot) : key };
}

export async function* readZipImages(zip: Buffer, limits: Partial<ZipLimits> = {}): AsyncGenerator<ZipImage> {
  const lim: ZipLimits = { ...DEFAULT_ZIP_LIMITS, ...limits };
  if (zip.length > ZIP_MAX_BYTES) throw refuse(`The images ZIP is larger than ${mb(ZIP_MAX_BYTES)}.`);
  const zipfile = await open(zip);
  try {
    if (zipfile.entryCount > lim.maxEntries)
      throw refuse(
        `The images ZIP has ${zipfile.entryCount} entries; at most ${lim.maxEntries} are accepted.`,
      );
    const keys = new Map<string, string>();
    let total = 0;
    for (;;) {
      const entry = await nextEntry(zipfile);
      if (!entry) return;
      const path = entry.fileName;
      if (isJunkEntry(path)) continue;
      checkEntry(entry, lim);
      total += entry.uncompressedSize;
      if (total > lim.maxTotalBytes)
        throw refuse(`The images ZIP holds more than ${mb(lim.maxTotalBytes)} of images once uncompressed.`);
      const { key, stem } = imageKeys(path);
      const clash = keys.get(key);
      if (clash !== undefined)
        throw refuse(
          `The images ZIP has two entries named "${key}" ("${clash}" and "${path}"); image names must be unique.`,
        );
      keys.set(key, path);
      const bytes = await readEntry(zipfile, entry, lim.maxEntryBytes);
      const type = await fileTypeFromBuffer(bytes);
      const contentType = IMAGE_CONTENT_TYPES.find((t) => t === type?.mime);
      if (!contentType)
        throw refuse(
          `The images ZIP entry "${path}" is not a PNG, JPEG, WebP or GIF image` +
            `${type ? ` (it is ${type.mime})` : ''}.`,
        );
      yield { path, key, stem, bytes, contentType, sha256: createHash('sha256').update(bytes).digest('hex') };
    }
  } finally {
    zipfile.close();
  }
}

function checkEntry(entry: Entry, lim: ZipLimits): void {
  const path = entry.fileName;
  // yauzl lets NUL and other controls through in names; the name is stored with the image.
  if (hasForbiddenControl(path))
    throw refuse(`The images ZIP entry "${showControls(path)}" has a control character in its name.`);
  if (entry.isEncrypted())
    throw refuse(`The images ZIP entry "${path}" is encrypted; encrypted archives are refused.`);
  if (((entry.externalFileAttributes >>> 16) & S_IFMT) === S_IFLNK)
    throw refuse(`The images ZIP entry "${path}" is a symbolic link; links are refused.`);
  if (entry.uncompressedSize > lim.maxEntryBytes)
    throw refuse(
      `The images ZIP entry "${path}" is ${mb(entry.uncompressedSize)}; each image may be at most ${mb(lim.maxEntryBytes)}.`,
    );
  if (entry.uncompressedSize > lim.maxRatio * Math.max(entry.compressedSize, 1))
    throw refuse(
      `The images ZIP entry "${path}" compresses more than ${lim.maxRatio}:1, which images never do; ` +
        'the archive looks like a zip bomb.',
    );
}

/** yauzl's own name checks (absolute paths, `..`, backslashes) reworded for customers. */
function describeZipError(err: Error, path?: string): Error {
  const entry = path === undefined ? 'an entry' : `the entry "${path}"`;
  const unsafe = /^(?:invalid relative path|absolute path|invalid characters in fileName): (.*)$/.exec(
    err.message,
  );
  if (unsafe)
    return refuse(
      `The images ZIP entry "${unsafe[1]}" has an unsafe path (absolute, or climbing out with ".."); the archive is refused.`,
    );
  if (/encrypt/i.test(err.message))
    return refuse(`The images ZIP has ${entry} that is encrypted; encrypted archives are refused.`);
  if (/too many bytes|too few bytes|size mismatch/.test(err.message))
    return refuse(
      `The images ZIP has ${entry} whose real size differs from its recorded size; the archive is refused.`,
    );
  if (path !== undefined) return refuse(`The images ZIP entry "${path}" cannot be read (${err.message}).`);
  return refuse(`The images file is not a readable ZIP archive (${err.message}).`);
}

function open(zip: Buffer): Promise<ZipFile> {
  return new Promise((resolve, reject) =>
    yauzl.fromBuffer(
      zip,
      { lazyEntries: true, validateEntrySizes: true, decodeStrings: true, autoClose: false },
      (err, zipfile) => (err ? reject(describeZipError(err)) : resolve(zipfile)),
    ),
  );
}

/** The next central-directory entry, or null at the end. */
function nextEntry(zipfile: ZipFile): Promise<Entry | null> {
  return new Promise((resolve, reject) => {
    const cleanup = () => {
      zipfile.off('entry', onEntry).off('end', onEnd).off('error', onError);
    };
    const onEntry = (e: Entry) => (cleanup(), resolve(e));
    const onEnd = () => (cleanup(), resolve(null));
    const onError = (err: Error) => (cleanup(), reject(describeZipError(err)));
    zipfile.on('entry', onEntry).on('end', onEnd).on('error', onError);
    zipfile.readEntry();
  });
}

/** Inflates one entry, stopping as soon as it passes `max` bytes. */
async function readEntry(zipfile: ZipFile, entry: Entry, max: number): Promise<Buffer> {
  let stream;
  try {
    stream = await zipfile.openReadStreamPromise(entry);
  } catch (err) {
    throw describeZipError(err as Error, entry.fileName);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > max)
        throw refuse(`The images ZIP entry "${entry.fileName}" inflates to more than ${mb(max)}.`);
      chunks.push(chunk);
    }
  } catch (err) {
    throw err instanceof HallmarkError ? err : describeZipError(err as Error, entry.fileName);
  } finally {
    stream.destroy();
  }
  return Buffer.concat(chunks);
}
