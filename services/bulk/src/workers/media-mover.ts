// The move of ZIP images stored here before issue 17 into the certificates service's media
// store: each image is handed over exactly as stored (its sha256 is anchored in its
// certificate's metadata) under its old id as an alias, so `/media/med_…` keeps answering,
// then its bytes here are dropped. Resumable by nature: a row with bytes is not moved yet; a
// crash between the two steps moves it again, which stores nothing twice (content-addressed).
import { IntervalWorker, type Logger } from '@hallmark/kit';
import type { MediaArchive } from '../media-archive.js';
import type { MediaStore } from '../media-store.js';

export async function moveMedia(media: MediaStore, archive: MediaArchive, pageSize = 20): Promise<number> {
  let moved = 0;
  for (;;) {
    const page = await media.unmoved(pageSize);
    if (page.length === 0) return moved;
    for (const m of page) {
      const ref = await archive.put(m.bytes, { aliasId: m.id, exact: true });
      await media.markMoved(m.id, ref.sha256);
      moved++;
    }
  }
}

export function mediaMoverWorker(media: MediaStore, archive: MediaArchive, log: Logger, intervalMs: number) {
  return new IntervalWorker({ name: 'media mover', intervalMs, log }, async () => {
    const moved = await moveMedia(media, archive);
    if (moved > 0) log.info({ moved }, 'ZIP images moved to the certificates media store');
  });
}
