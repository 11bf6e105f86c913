// ChainSettingsService handlers: proto <-> service calls, nothing else.
import { scopeOf, type AsyncHandlers, type Pool } from '@hallmark/kit';
import type {
  ChainSettings as ChainSettingsProto,
  ChainSettingsServiceServer,
} from '@hallmark/proto/certificates/v1/chain_settings';
import type { TransferEventMode } from '../chain/contract.js';
import { toApi } from './domain.js';
import { ChainSettingsService, type ChainSettingsView } from './service.js';

const toProto = (v: ChainSettingsView): ChainSettingsProto => ({
  marketplaces: v.marketplaces,
  transfer_events: v.transferEvents ?? '',
  effective_transfer_events: toApi(v.effective),
  source: v.source,
  updated_at: v.updatedAt ? v.updatedAt.toISOString() : '',
});

export function createChainSettingsHandlers(deps: {
  pool: Pool;
  deploymentDefault: () => TransferEventMode;
}): AsyncHandlers<ChainSettingsServiceServer> {
  const service = new ChainSettingsService(deps.pool, deps.deploymentDefault);
  return {
    async getChainSettings(req) {
      return toProto(await service.get(scopeOf(req.principal)));
    },
    async setChainSettings(req) {
      return toProto(
        await service.set(scopeOf(req.principal), {
          marketplaces: req.marketplaces,
          transferEvents: req.transfer_events,
        }),
      );
    },
  };
}
