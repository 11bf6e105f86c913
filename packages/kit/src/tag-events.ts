// The payload of `certificate.tag_clone_suspected` (events.ts): an NFC tag's message seen again
// (certificates service, docs/nfc-tags.md). Kept beside the event table to keep it short.
import { z } from 'zod';

/** `data.object`: the tag, its certificate, the counter seen and the last one accepted. */
export const TagCloneSuspectedEvent = z.object({
  object: z.object({
    tag_id: z.string().min(1),
    certificate_id: z.string().min(1),
    uid: z.string(),
    counter_seen: z.number().int(),
    last_counter: z.number().int(),
    tap_count: z.number().int(),
    at: z.string(),
  }),
});
