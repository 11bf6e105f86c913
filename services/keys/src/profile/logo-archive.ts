// The issuer's logo, archived by the certificates media store (MediaService.ArchiveImageUrl):
// fetched once through that store's outbound guard (https, public hosts, redirects, time and
// size caps, PNG/JPEG/WebP/GIF by magic bytes, GPS stripped), kept by content and served at
// `/media/<sha256>` like certificate images. Keys keeps only the reference. The request names
// the URL `logoUrl`, so a refusal comes back as parameter_invalid `logoUrl` worded for the
// API's caller and passes through unchanged.
import type { AsyncClient } from '@hallmark/kit';
import type { MediaServiceClient } from '@hallmark/proto/certificates/v1/media';
import type { ArchivedLogo } from './domain.js';

export type LogoArchive = (url: string) => Promise<ArchivedLogo>;

/** The media store's fetch (its own time cap) and write, inside the gateway's 60 s for the save. */
const ARCHIVE_DEADLINE_MS = 45_000;

export function grpcLogoArchive(
  media: Pick<AsyncClient<MediaServiceClient>, 'archiveImageUrl'>,
): LogoArchive {
  return async (url) => {
    const { media: ref } = await media.archiveImageUrl(
      { url, param: 'logoUrl' },
      // Idempotent by content: the same bytes are stored once however often they are sent.
      { deadlineMs: ARCHIVE_DEADLINE_MS, idempotent: true },
    );
    if (!ref) throw new Error('MediaService.ArchiveImageUrl answered no media');
    return { sha256: ref.sha256, width: ref.width, height: ref.height };
  };
}
