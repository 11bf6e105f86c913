// SQL of `enterprise_chain_settings` (migration 3312): one row per enterprise that set its chain
// settings. `batchModeOf` runs in MintBatch's transaction, so a batch is recorded with the
// settings as they were when it was recorded.
import type { Pool, Queryable } from '@hallmark/kit';
import { batchMode, NO_SETTINGS, type ApiTransferEvents, type ChainSettings } from './domain.js';
import type { TransferEventMode } from '../chain/contract.js';

interface SettingsRow {
  marketplaces: boolean;
  transfer_events: ApiTransferEvents | null;
  updated_at: Date;
}

const fromRow = (r: SettingsRow | undefined): ChainSettings =>
  r
    ? { marketplaces: r.marketplaces, transferEvents: r.transfer_events, updatedAt: r.updated_at }
    : NO_SETTINGS;

async function read(q: Queryable, enterpriseId: string): Promise<ChainSettings> {
  const { rows } = await q.query<SettingsRow>(
    'SELECT marketplaces, transfer_events, updated_at FROM enterprise_chain_settings WHERE enterprise_id = $1',
    [enterpriseId],
  );
  return fromRow(rows[0]);
}

/** The mode a batch of `enterpriseId` is recorded with now (null: the deployment default). */
export async function batchModeOf(tx: Queryable, enterpriseId: string): Promise<TransferEventMode | null> {
  return batchMode(await read(tx, enterpriseId));
}

export class ChainSettingsStore {
  constructor(private readonly pool: Pool) {}

  get(enterpriseId: string): Promise<ChainSettings> {
    return read(this.pool, enterpriseId);
  }

  async set(
    enterpriseId: string,
    s: { marketplaces: boolean; transferEvents: ApiTransferEvents | null },
    actorId: string | null,
  ): Promise<ChainSettings> {
    const { rows } = await this.pool.query<SettingsRow>(
      `INSERT INTO enterprise_chain_settings (enterprise_id, marketplaces, transfer_events, updated_by)
       VALUES ($1, $2, $3, $4)
       ON CONFLICT (enterprise_id) DO UPDATE SET marketplaces = EXCLUDED.marketplaces,
         transfer_events = EXCLUDED.transfer_events, updated_by = EXCLUDED.updated_by, updated_at = now()
       RETURNING marketplaces, transfer_events, updated_at`,
      [enterpriseId, s.marketplaces, s.transferEvents, actorId],
    );
    return fromRow(rows[0]);
  }
}
