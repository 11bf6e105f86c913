// The verify page's image check (issue 17): the image a reader sees is the one whose sha256 is
// in the anchored metadata. An image archived at issue is served from `/media/<sha256>`, and
// its stored bytes are hashed again here; an older hot-linked image is judged by the
// backfill's verdict (archived, unavailable, changed). No recorded hash: no check.
import { fingerprint, mediaPath } from '../media/domain/image.js';
import type { MediaService } from '../media/service.js';
import type { MediaStore } from '../media/store.js';
import type { CertificateRecord } from '../domain/certificate.js';

export interface ImageView {
  url: string;
  sha256: string;
  width: number;
  height: number;
  source?: string;
  state: 'archived' | 'hotlinked' | 'unavailable' | 'changed';
}

export interface ImageCheck {
  check: { name: 'image'; passed: boolean; detail: string } | null;
  image: ImageView | null;
}

export interface ImageCheckDeps {
  media: MediaService;
  store: MediaStore;
  publicUrl: string;
}

const recordedSha = (c: CertificateRecord): string | null => {
  const image = c.metadata.image as { sha256?: unknown } | undefined;
  return typeof image?.sha256 === 'string' && /^[0-9a-fA-F]{64}$/.test(image.sha256)
    ? image.sha256.toLowerCase()
    : null;
};

export async function checkImage(d: ImageCheckDeps, c: CertificateRecord): Promise<ImageCheck> {
  const sha = recordedSha(c);
  if (!sha || !c.imageUrl) return { check: null, image: null };
  const fp = fingerprint(sha);
  const hallmarkUrl = new URL(mediaPath(sha), d.publicUrl).toString();
  const source = typeof c.metadata.imageSource === 'string' ? c.metadata.imageSource : undefined;
  const archivedAtIssue = c.imageUrl.endsWith(mediaPath(sha));
  const verdict = archivedAtIssue ? null : await d.store.verdictOf(c.id);
  const dims = (await d.media.dimensions(sha)) ?? { width: 0, height: 0 };
  if (archivedAtIssue || verdict?.state === 'archived') {
    const ok = await d.media.storedMatches(sha);
    return {
      check: {
        name: 'image',
        passed: ok,
        detail: ok
          ? `The image matches the hash anchored on chain (fingerprint ${fp}); Hallmark keeps a copy.`
          : `The image Hallmark keeps does not match the hash anchored on chain (fingerprint ${fp}).`,
      },
      image: {
        url: hallmarkUrl,
        sha256: sha,
        ...dims,
        source: source ?? (archivedAtIssue ? undefined : c.imageUrl),
        state: 'archived',
      },
    };
  }
  const base = { url: c.imageUrl, sha256: sha, width: 0, height: 0, source: c.imageUrl };
  if (verdict?.state === 'changed')
    return {
      check: {
        name: 'image',
        passed: false,
        detail: `Image changed since issue: the picture at its original address no longer matches the hash anchored on chain (fingerprint ${fp}).`,
      },
      image: { ...base, state: 'changed' },
    };
  if (verdict?.state === 'unavailable')
    return {
      check: {
        name: 'image',
        passed: false,
        detail: `Original image no longer available: its address no longer answers, and Hallmark has no copy (fingerprint ${fp}).`,
      },
      image: { ...base, state: 'unavailable' },
    };
  return { check: null, image: { ...base, state: 'hotlinked' } };
}
