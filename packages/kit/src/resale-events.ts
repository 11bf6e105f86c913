// The payload of the `certificate.resale_*` events (events.ts): an owner's resale of a
// certificate to a buyer's e-mail (certificates service, docs/resale.md). Kept beside the event
// table to keep it short. Hallmark's own versioned types, beyond the spec's list: a
// `/api/v1/webhooks` endpoint subscribes to them, and each reaches only the certificate's
// enterprise (the brand). `started`: the owner started it (with `approval: requested` when the
// brand's policy asks for approval, then also `approval_requested`, the brand's cue to decide
// by API); `approved` / `refused` (with the brand's reason; refused ends it, the owner keeps the
// certificate); `completed`: the buyer claimed it and the token is confirmed in the buyer's
// wallet; `cancelled`: the owner revoked it or it expired unclaimed.
import { z } from 'zod';

const Id = z.string().min(1);

/** A resale as its versioned webhooks carry it (certificates service, docs/resale.md). */
export const ResaleObject = z.looseObject({
  id: Id,
  certificate_id: Id,
  token_id: z.number().nullable(),
  status: z.string(),
  approval: z.enum(['requested', 'approved', 'refused']).nullable(),
  approval_reason: z.string().nullable(),
  seller_address: z.string(),
  buyer_address: z.string().nullable(),
  transaction_hash: z.string().nullable(),
  expires_at: z.string(),
  created_at: z.string(),
  livemode: z.boolean(),
});

/** `data.object`: the resale (no buyer contact data). */
export const ResaleEvent = z.object({ object: ResaleObject });
