// The batch events (certificates service), apart from events.ts to keep that table short: a
// bulk job's batch goes on the bus as one event, not one per item, so the bus, notify and every
// gateway carry a 1,000,000-item job as about 1,000 events (plus its vouchers' few per batch).
import { z } from 'zod';

const Id = z.string().min(1);
/** A certificate voucher as its events carry it (certificate_voucher.created / .minted). */
const VoucherObject = z.looseObject({ id: Id });
const internal = <S extends z.ZodType>(schema: S) => ({ schema, webhook: null });

/** The entries of events.ts's table (spread there). */
export const BATCH_EVENTS = {
  /**
   * A batch of more than one certificate confirmed on chain, once per batch, in place of a
   * certificate.minted per certificate (a batch of one still emits certificate.minted).
   * `object` is the batch and its chain refs; `certificates` names each certificate and its
   * token, so readers (the gateway's public cache) act on each.
   */
  'certificate.batch_minted': internal(
    z.object({
      object: z.looseObject({
        batchId: Id,
        quantity: z.number().int().positive(),
        firstTokenId: z.number(),
        holderAddress: z.string(),
        transactionHash: z.string(),
        blockNumber: z.number(),
        certificates: z.array(z.object({ id: Id, tokenId: z.number() })),
      }),
    }),
  ),
  /**
   * The certificate_voucher.created and .minted of many vouchers at once (a CreateVouchers of
   * more than 10, as a bulk job's batches are, or the vouchers of a batch just confirmed), up to
   * 200 vouchers an event (well under NATS's 1 MB message bound), in place of one event per
   * voucher. Not delivered as itself: notify expands it into the per-voucher voucher.created /
   * voucher.minted deliveries of the subscriptions that ask, each with the id
   * `<event id>.<c|m>.<voucher id>`.
   */
  'certificate_voucher.batch': internal(
    z.object({ created: z.array(VoucherObject), minted: z.array(VoucherObject) }),
  ),
};
