// All SQL of the fulfilment slice: one row per order's fulfilment.
import type { Pool } from '@hallmark/kit';
import type { FulfilmentStatus } from './domain/fulfilment.js';

export interface FulfilmentRecord {
  shop: string;
  orderId: string;
  status: FulfilmentStatus;
  attempts: number;
  via: string | null;
  trackingNumber: string | null;
  trackingUrl: string | null;
  error: string | null;
}

const row = (r: any): FulfilmentRecord => ({
  shop: r.shop,
  orderId: r.order_id,
  status: r.status,
  attempts: r.attempts,
  via: r.via,
  trackingNumber: r.tracking_number,
  trackingUrl: r.tracking_url,
  error: r.error,
});

export class FulfilmentStore {
  constructor(private readonly pool: Pool) {}

  async get(shop: string, orderId: string): Promise<FulfilmentRecord | null> {
    const { rows } = await this.pool.query('SELECT * FROM fulfilments WHERE shop = $1 AND order_id = $2', [
      shop,
      orderId,
    ]);
    return rows[0] ? row(rows[0]) : null;
  }

  /** Records one attempt's outcome (attempts counts every attempt ever made). */
  async record(
    shop: string,
    orderId: string,
    o: {
      status: FulfilmentStatus;
      via?: string | null;
      trackingNumber?: string;
      trackingUrl?: string;
      error?: string | null;
      fulfillmentId?: string | null;
    },
  ): Promise<FulfilmentRecord> {
    const { rows } = await this.pool.query(
      `INSERT INTO fulfilments (shop, order_id, status, attempts, via, tracking_number, tracking_url, error, platform_fulfillment_id)
       VALUES ($1, $2, $3, CASE WHEN $3 = 'skipped' THEN 0 ELSE 1 END, $4, $5, $6, $7, $8)
       ON CONFLICT (shop, order_id) DO UPDATE SET status = EXCLUDED.status,
         attempts = fulfilments.attempts + CASE WHEN EXCLUDED.status = 'skipped' THEN 0 ELSE 1 END,
         via = COALESCE(EXCLUDED.via, fulfilments.via), tracking_number = COALESCE(EXCLUDED.tracking_number, fulfilments.tracking_number),
         tracking_url = COALESCE(EXCLUDED.tracking_url, fulfilments.tracking_url), error = EXCLUDED.error,
         platform_fulfillment_id = COALESCE(EXCLUDED.platform_fulfillment_id, fulfilments.platform_fulfillment_id), updated_at = now()
       RETURNING *`,
      [
        shop,
        orderId,
        o.status,
        o.via ?? null,
        o.trackingNumber ?? null,
        o.trackingUrl ?? null,
        o.error ?? null,
        o.fulfillmentId ?? null,
      ],
    );
    return row(rows[0]);
  }
}
