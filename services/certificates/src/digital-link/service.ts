// GS1 Digital Link resolution (docs/digital-link.md): the certificate a Digital Link path names.
// The gateway's resolver routes make this one call and build the redirect, the Link header and
// the linkset from its answer.
import { HallmarkError } from '@hallmark/kit';
import { digitalLinkPath, parseDigitalLinkPath } from './domain.js';
import type { DigitalLinkStore, ResolvedItem } from './store.js';

export interface Resolution extends ResolvedItem {
  /** `/01/<gtin14>/21/<serial, percent-encoded>`: the item's canonical Digital Link path. */
  path: string;
}

export class DigitalLinkService {
  constructor(private readonly store: DigitalLinkStore) {}

  /**
   * `rest` is the path after `/01/` as requested (percent-encoded). Bad syntax:
   * parameter_invalid. A GTIN-level (or lot-level) path: resource_not_found — Hallmark
   * certifies items, not products, so it publishes no GTIN-level links. An unknown item:
   * resource_not_found.
   */
  async resolve(rest: string): Promise<Resolution> {
    const key = parseDigitalLinkPath(rest);
    if (key.serial === null)
      throw new HallmarkError('resource_not_found', {
        message:
          `Hallmark resolves certified items only: /01/${key.gtin}/21/<serial>. ` +
          'It publishes no links for a GTIN alone (or a GTIN and lot).',
      });
    const item = await this.store.resolve(key.gtin, key.serial);
    if (!item)
      throw new HallmarkError('resource_not_found', {
        message: `No certificate has GTIN ${key.gtin} and serial '${key.serial}'.`,
        extras: { resource: 'certificate' },
      });
    return { ...item, path: digitalLinkPath(item.gtin, item.serial) };
  }
}
