// What is done to an image's bytes with sharp (libvips, shipped in npm): the stored form
// (EXIF GPS stripped, the orientation applied to the pixels so the picture still stands the
// right way up; bytes without GPS are stored exactly as received, so their hash is the one a
// merchant can compute), its dimensions, and the WebP variants pages load.
import sharp, { type Metadata } from 'sharp';
import { exifHasGps, sniffImageType, type ImageType, type VariantWidth } from './domain/image.js';

export interface PreparedImage {
  bytes: Buffer;
  contentType: ImageType;
  width: number;
  height: number;
}

export class NotAnImageError extends Error {}

sharp.cache(false);
sharp.concurrency(1);

/**
 * The bytes to store for an image: its type by magic bytes (else NotAnImageError); with
 * `exact` the bytes are kept as they are (their sha256 is already anchored on chain).
 */
export async function prepareImage(input: Buffer, exact = false): Promise<PreparedImage> {
  const contentType = sniffImageType(input.subarray(0, 16));
  if (!contentType) throw new NotAnImageError('not a PNG, JPEG, WebP or GIF image');
  let meta: Metadata;
  try {
    meta = await sharp(input, { animated: contentType === 'image/gif' }).metadata();
  } catch {
    throw new NotAnImageError(`the ${contentType} image cannot be decoded`);
  }
  const dims = (m: Metadata) => {
    const swap = (m.orientation ?? 1) >= 5;
    return { width: (swap ? m.height : m.width) ?? 0, height: (swap ? m.width : m.height) ?? 0 };
  };
  if (exact || contentType === 'image/gif' || !exifHasGps(meta.exif)) {
    return { bytes: input, contentType, ...dims(meta) };
  }
  // Re-encoded without metadata (sharp drops EXIF unless asked), the orientation applied.
  const img = sharp(input).rotate().keepIccProfile();
  const bytes = await (
    contentType === 'image/png'
      ? img.png()
      : contentType === 'image/webp'
        ? img.webp({ quality: 92 })
        : img.jpeg({ quality: 92 })
  ).toBuffer();
  const out = await sharp(bytes).metadata();
  return { bytes, contentType, width: out.width ?? 0, height: out.height ?? 0 };
}

/** A WebP of `width` px (never enlarged), upright, without metadata. */
export async function makeVariant(original: Buffer, width: VariantWidth): Promise<Buffer> {
  return sharp(original)
    .rotate()
    .resize({ width, withoutEnlargement: true })
    .webp({ quality: 78 })
    .toBuffer();
}
