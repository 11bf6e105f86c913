// The certificate's picture on the voucher and claim pages: Hallmark's archived copy
// (`/media/<sha256>`) as a small WebP for phones (a larger one for wide screens), always with a
// width and height so the page does not jump while it loads. A picture Hallmark does not keep
// (a merchant's URL, before archiving) is shown as it is.
import { html, type Html } from './html.js';

const MEDIA_PATH = /^\/media\/[0-9a-f]{64}$/;

/** Whether `src` is an image Hallmark serves (and so has its resized variants). */
export function isArchived(src: string): boolean {
  try {
    return MEDIA_PATH.test(new URL(src, 'http://hallmark.invalid').pathname);
  } catch {
    return false;
  }
}

/** Width and height of the box, from the picture's own size when known (else 4:3). */
export function photoBox(width = 0, height = 0, max = 480): { w: number; h: number } {
  if (width <= 0 || height <= 0) return { w: max, h: Math.round((max * 3) / 4) };
  const w = Math.min(width, max);
  return { w, h: Math.round((height * w) / width) };
}

export function photoImg(src: string, alt: string, size: { width?: number; height?: number } = {}): Html {
  const { w, h } = photoBox(size.width, size.height);
  if (!isArchived(src))
    return html`<img
      class="photo"
      src="${src}"
      width="${w}"
      height="${h}"
      alt="${alt}"
      referrerpolicy="no-referrer"
    />`;
  return html`<img
    class="photo"
    src="${src}?w=480"
    srcset="${src}?w=480 480w, ${src}?w=1024 1024w"
    sizes="(max-width: 40rem) 100vw, 40rem"
    width="${w}"
    height="${h}"
    alt="${alt}"
    fetchpriority="high"
  />`;
}
