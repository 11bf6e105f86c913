// SQL of GS1 Digital Link: the certificate an item's (GTIN, serial) names, and the check at mint
// that no certificate of the mode holds an item's (GTIN, serial) yet.
import { HallmarkError, type Pool, type Queryable } from '@hallmark/kit';
import type { MintBatchInput } from '../domain/certificate.js';

/** The unique index behind the rule (migration 3211). */
export const DIGITAL_LINK_CONSTRAINT = 'certificates_digital_link';

/** The refusal of a (GTIN, serial) already held; `at` names the item when known. */
export function digitalLinkTaken(at: { index: number; gtin: string; serial: string } | null): HallmarkError {
  return new HallmarkError('resource_already_exists', {
    param: at ? `items[${at.index}].serial` : 'items',
    message: at
      ? `A certificate with GTIN ${at.gtin} and serial '${at.serial}' exists already (items[${at.index}]); ` +
        'a GTIN and serial name one certificate. Nothing of this batch was recorded.'
      : 'A certificate of this batch has a GTIN and serial another certificate holds; nothing was recorded.',
  });
}

/**
 * Refuses the batch (inside its transaction, before any certificate is written) when a
 * certificate of the mode holds one of its items' (GTIN, serial), naming the first such item.
 * A race past this check meets the unique index and is refused the same way (store.ts).
 */
export async function refuseTakenDigitalLinks(
  tx: Queryable,
  livemode: boolean,
  input: MintBatchInput,
): Promise<void> {
  const keyed = input.items.flatMap((item, index) =>
    item.gtin !== null && item.serial !== null ? [{ index, gtin: item.gtin, serial: item.serial }] : [],
  );
  if (keyed.length === 0) return;
  const { rows } = await tx.query<{ gtin: string; serial: string }>(
    `SELECT c.gtin, c.serial FROM certificates c
     JOIN unnest($2::text[], $3::text[]) AS k(gtin, serial) ON c.gtin = k.gtin AND c.serial = k.serial
     WHERE c.livemode = $1`,
    [livemode, keyed.map((k) => k.gtin), keyed.map((k) => k.serial)],
  );
  if (rows.length === 0) return;
  const taken = new Set(rows.map((r) => `${r.gtin}/${r.serial}`));
  throw digitalLinkTaken(keyed.find((k) => taken.has(`${k.gtin}/${k.serial}`)) ?? null);
}

/** What the resolver needs of the certificate an item names. */
export interface ResolvedItem {
  certificateId: string;
  livemode: boolean;
  gtin: string;
  serial: string;
  /** `metadata.passportUrl` (checked at mint), or null. */
  passportUrl: string | null;
}

export class DigitalLinkStore {
  constructor(private readonly pool: Pool) {}

  /**
   * The certificate of (gtin, serial): the live one when both modes have one (a printed code
   * is meant for the live certificate; test mode's codes resolve while no live one exists).
   */
  async resolve(gtin: string, serial: string): Promise<ResolvedItem | null> {
    const { rows } = await this.pool.query<{
      id: string;
      livemode: boolean;
      gtin: string;
      serial: string;
      passport_url: string | null;
    }>(
      `SELECT id, livemode, gtin, serial, metadata->>'passportUrl' AS passport_url
       FROM certificates WHERE gtin = $1 AND serial = $2
       ORDER BY livemode DESC LIMIT 1`,
      [gtin, serial],
    );
    const r = rows[0];
    if (!r) return null;
    return {
      certificateId: r.id,
      livemode: r.livemode,
      gtin: r.gtin,
      serial: r.serial,
      passportUrl: r.passport_url,
    };
  }
}
