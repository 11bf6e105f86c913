// The chain settings use cases behind ChainSettingsService: read an enterprise's settings with
// the mode its next batch gets, and replace them.
import type { Pool } from '@hallmark/kit';
import type { TransferEventMode } from '../chain/contract.js';
import type { Scope } from '../domain/certificate.js';
import { effectiveMode, parseTransferEvents, type ChainSettings, type ModeSource } from './domain.js';
import { ChainSettingsStore } from './store.js';

export interface ChainSettingsView extends ChainSettings {
  effective: TransferEventMode;
  source: ModeSource;
}

export class ChainSettingsService {
  private readonly store: ChainSettingsStore;

  /** `deploymentDefault`: HALLMARK_CHAIN_TRANSFER_EVENTS (as the connected contract allows). */
  constructor(
    pool: Pool,
    private readonly deploymentDefault: () => TransferEventMode,
  ) {
    this.store = new ChainSettingsStore(pool);
  }

  async get(scope: Scope): Promise<ChainSettingsView> {
    return this.view(await this.store.get(scope.enterpriseId));
  }

  async set(
    scope: Scope,
    input: { marketplaces: boolean; transferEvents: string },
  ): Promise<ChainSettingsView> {
    const transferEvents = parseTransferEvents(input.transferEvents);
    const saved = await this.store.set(
      scope.enterpriseId,
      { marketplaces: input.marketplaces, transferEvents },
      scope.actorId || null,
    );
    return this.view(saved);
  }

  private view(s: ChainSettings): ChainSettingsView {
    const { mode, source } = effectiveMode(s, this.deploymentDefault());
    return { ...s, effective: mode, source };
  }
}
