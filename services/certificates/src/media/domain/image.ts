// Pure rules of archived images: the type told by magic bytes (never by a header or a file
// name), the storage keys of originals and variants, the variant widths pages ask for, the
// `Range` header, and the short fingerprint a person reads on the verify page.

export type ImageType = 'image/png' | 'image/jpeg' | 'image/webp' | 'image/gif';

/** The type of an image by its first bytes: PNG, JPEG, WebP or GIF; null for anything else. */
export function sniffImageType(head: Uint8Array): ImageType | null {
  const b = (i: number) => head[i];
  const ascii = (from: number, text: string) => [...text].every((c, i) => head[from + i] === c.charCodeAt(0));
  if (b(0) === 0x89 && ascii(1, 'PNG') && b(4) === 0x0d && b(5) === 0x0a) return 'image/png';
  if (b(0) === 0xff && b(1) === 0xd8 && b(2) === 0xff) return 'image/jpeg';
  if (ascii(0, 'RIFF') && ascii(8, 'WEBP')) return 'image/webp';
  if (ascii(0, 'GIF87a') || ascii(0, 'GIF89a')) return 'image/gif';
  return null;
}

/** The widths of the WebP variants pages use (a phone on a QR scan gets ~480). */
export const VARIANT_WIDTHS = [480, 1024] as const;
export type VariantWidth = (typeof VARIANT_WIDTHS)[number];

export const isVariantWidth = (w: number): w is VariantWidth =>
  (VARIANT_WIDTHS as readonly number[]).includes(w);

export const SHA256_HEX = /^[0-9a-f]{64}$/;

/** Where the original bytes of `sha256` live in the store. */
export const objectKey = (sha256: string) => `objects/${sha256.slice(0, 2)}/${sha256}`;
/** Where a variant lives (kept apart so counting objects counts originals only). */
export const variantKey = (sha256: string, width: VariantWidth) =>
  `variants/${sha256.slice(0, 2)}/${sha256}-${width}.webp`;

/** The path Hallmark serves an image at (under HALLMARK_PUBLIC_URL). */
export const mediaPath = (sha256: string) => `/media/${sha256}`;

/** A short fingerprint of a hash for people: `3f2a 9c1e … 7b04` (first and last 8 hex). */
export function fingerprint(sha256: string): string {
  const h = sha256.replace(/^0x/, '').toLowerCase();
  return `${h.slice(0, 4)} ${h.slice(4, 8)} … ${h.slice(-8, -4)} ${h.slice(-4)}`;
}

export interface ByteRange {
  start: number;
  /** Inclusive. */
  end: number;
}

/**
 * One `Range: bytes=…` of an object of `total` bytes (RFC 9110 § 14.1.2): `a-b`, `a-`, `-n`.
 * null: no range (serve the whole object); 'unsatisfiable': answer 416. Several ranges are
 * served whole (a multipart answer is not worth it for images).
 */
export function parseRange(header: string | undefined, total: number): ByteRange | null | 'unsatisfiable' {
  if (!header) return null;
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m || (m[1] === '' && m[2] === '')) return null;
  if (m[1] === '') {
    const n = Number(m[2]);
    if (n === 0) return 'unsatisfiable';
    return { start: Math.max(0, total - n), end: total - 1 };
  }
  const start = Number(m[1]);
  const end = m[2] === '' ? total - 1 : Math.min(Number(m[2]), total - 1);
  if (start >= total || end < start) return 'unsatisfiable';
  return { start, end };
}

/**
 * Whether an EXIF block (as sharp reports it: `Exif\0\0` + TIFF) has a GPS IFD, i.e. can tell
 * where the picture was taken. Reads IFD0's entries for tag 0x8825 (GPSInfo); a block it
 * cannot read counts as having one (stripping then costs a re-encode, never a leak).
 */
export function exifHasGps(exif: Uint8Array | undefined): boolean {
  if (!exif || exif.length < 14) return false;
  const buf = Buffer.from(exif.buffer, exif.byteOffset, exif.byteLength);
  const base = buf.subarray(0, 6).toString('latin1') === 'Exif\0\0' ? 6 : 0;
  const order = buf.subarray(base, base + 2).toString('latin1');
  if (order !== 'II' && order !== 'MM') return true;
  const le = order === 'II';
  const u16 = (o: number) => (le ? buf.readUInt16LE(o) : buf.readUInt16BE(o));
  const u32 = (o: number) => (le ? buf.readUInt32LE(o) : buf.readUInt32BE(o));
  try {
    const ifd0 = base + u32(base + 4);
    const n = u16(ifd0);
    for (let i = 0; i < n; i++) if (u16(ifd0 + 2 + i * 12) === 0x8825) return true;
    return false;
  } catch {
    return true;
  }
}
