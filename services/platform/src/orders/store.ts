// All SQL of the orders slice: inbound webhook dedupe, orders (body encrypted: it holds the
// customer's contact), their job outcome, and the payment event in the same transaction.
import { recordEvent, transaction, type Encryptor, type Pool, type PoolClient } from '@hallmark/kit';

export interface OrderRecord {
  shop: string;
  orderId: string;
  enterpriseId: string;
  status: 'created' | 'paid' | 'cancelled';
  payload: Record<string, unknown>;
  jobId: string | null;
  jobStatus: string | null;
  voucherIds: string[];
  transactionHash: string | null;
  vouchersVoided: boolean;
}

export class OrdersStore {
  constructor(
    readonly pool: Pool,
    private readonly enc: Encryptor,
  ) {}

  tx<T>(fn: (tx: PoolClient) => Promise<T>): Promise<T> {
    return transaction(this.pool, fn);
  }

  /**
   * The shop an earlier delivery of this order came from when it is not `shop`, else null.
   * Order ids are the platform's, unique across shops, so another shop's is a replay under a
   * forged (unsigned) shop header. Locked per order until commit, so two deliveries of one
   * order under two shops cannot both pass.
   */
  async orderHeardFromOtherShop(tx: PoolClient, orderId: string, shop: string): Promise<string | null> {
    await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`inbound-order:${orderId}`]);
    const { rows } = await tx.query<{ shop: string }>(
      'SELECT shop FROM inbound_webhooks WHERE order_id = $1 AND shop <> $2 LIMIT 1',
      [orderId, shop],
    );
    return rows[0]?.shop ?? null;
  }

  /** False when this webhook (same id, or same topic + order) was accepted before. */
  async firstDelivery(
    tx: PoolClient,
    webhookId: string,
    shop: string,
    topic: string,
    orderId: string | null,
  ): Promise<boolean> {
    const { rowCount } = await tx.query(
      'INSERT INTO inbound_webhooks (webhook_id, shop, topic, order_id) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING',
      [webhookId, shop, topic, orderId],
    );
    return rowCount === 1;
  }

  async recordCreated(
    tx: PoolClient,
    o: { shop: string; orderId: string; enterpriseId: string; name: string | null; payload: unknown },
  ) {
    await tx.query(
      `INSERT INTO orders (shop, order_id, enterprise_id, order_name, status, payload_enc) VALUES ($1, $2, $3, $4, 'created', $5)
       ON CONFLICT (shop, order_id) DO NOTHING`,
      [o.shop, o.orderId, o.enterpriseId, o.name, this.enc.encrypt(JSON.stringify(o.payload))],
    );
  }

  /** Marks the order paid with its `payment.succeeded` event; false when it was cancelled. */
  async recordPaid(
    tx: PoolClient,
    o: {
      shop: string;
      orderId: string;
      enterpriseId: string;
      livemode: boolean;
      name: string | null;
      payload: Record<string, unknown>;
    },
  ): Promise<boolean> {
    const { rowCount } = await tx.query(
      `INSERT INTO orders (shop, order_id, enterprise_id, order_name, status, payload_enc) VALUES ($1, $2, $3, $4, 'paid', $5)
       ON CONFLICT (shop, order_id) DO UPDATE SET status = 'paid', payload_enc = EXCLUDED.payload_enc, updated_at = now()
       WHERE orders.status = 'created'`,
      [o.shop, o.orderId, o.enterpriseId, o.name, this.enc.encrypt(JSON.stringify(o.payload))],
    );
    if (rowCount !== 1) return false;
    const p = o.payload;
    await recordEvent(tx, 'platform', {
      type: 'payment.succeeded',
      enterpriseId: o.enterpriseId,
      livemode: o.livemode,
      data: {
        object: {
          id: o.orderId,
          object: 'payment',
          status: 'succeeded',
          source: 'platform',
          shop: o.shop,
          order_id: o.orderId,
          order_name: o.name,
          amount: p.total_price ?? null,
          currency: p.currency ?? null,
          created_at: new Date().toISOString(),
        },
      },
    });
    return true;
  }

  /** orders/cancelled: the order is cancelled; answers its vouchers (to void). */
  async recordCancelled(
    tx: PoolClient,
    o: { shop: string; orderId: string; enterpriseId: string; name: string | null; payload: unknown },
  ) {
    await tx.query(
      `INSERT INTO orders (shop, order_id, enterprise_id, order_name, status, payload_enc) VALUES ($1, $2, $3, $4, 'cancelled', $5)
       ON CONFLICT (shop, order_id) DO UPDATE SET status = 'cancelled', updated_at = now()`,
      [o.shop, o.orderId, o.enterpriseId, o.name, this.enc.encrypt(JSON.stringify(o.payload))],
    );
  }

  async get(shop: string, orderId: string): Promise<OrderRecord | null> {
    const { rows } = await this.pool.query('SELECT * FROM orders WHERE shop = $1 AND order_id = $2', [
      shop,
      orderId,
    ]);
    const r = rows[0];
    if (!r) return null;
    return {
      shop: r.shop,
      orderId: r.order_id,
      enterpriseId: r.enterprise_id,
      status: r.status,
      payload: JSON.parse(this.enc.decrypt(r.payload_enc)),
      jobId: r.job_id,
      jobStatus: r.job_status,
      voucherIds: r.voucher_ids,
      transactionHash: r.transaction_hash,
      vouchersVoided: r.vouchers_voided,
    };
  }

  /** An order by global id, numeric id, number or name (`#1001`). */
  async find(shop: string, ref: string): Promise<{ orderId: string; transactionHash: string | null } | null> {
    const digits = /^#?(\d{1,20})$/.exec(ref)?.[1];
    const { rows } = await this.pool.query(
      `SELECT order_id, transaction_hash FROM orders WHERE shop = $1
         AND (order_id = $2 OR order_id = 'gid://shopify/Order/' || $3 OR order_name = $2 OR order_name = '#' || $3)
       ORDER BY created_at DESC LIMIT 1`,
      [shop, ref, digits ?? ''],
    );
    return rows[0] ? { orderId: rows[0].order_id, transactionHash: rows[0].transaction_hash } : null;
  }

  async setJob(
    shop: string,
    orderId: string,
    j: { jobId: string; jobStatus: string; voucherIds?: string[]; transactionHash?: string | null },
  ) {
    await this.pool.query(
      `UPDATE orders SET job_id = $3, job_status = $4, voucher_ids = COALESCE($5, voucher_ids),
         transaction_hash = COALESCE($6, transaction_hash), updated_at = now() WHERE shop = $1 AND order_id = $2`,
      [shop, orderId, j.jobId, j.jobStatus, j.voucherIds ?? null, j.transactionHash ?? null],
    );
  }

  /**
   * An order that could not become its job: recorded on the order and as the integration's
   * last error, with `platform.order.failed`, all in one transaction and only the first time
   * (a repeated workflow step reports nothing twice). False when it was already recorded.
   */
  async recordFailure(
    o: { shop: string; orderId: string; orderName: string | null; orderNumber: string | null },
    owner: { enterpriseId: string; livemode: boolean },
    failure: { code: string; message: string; param?: string },
  ): Promise<boolean> {
    const at = new Date().toISOString();
    return transaction(this.pool, async (tx) => {
      const { rowCount } = await tx.query(
        `UPDATE orders SET job_id = '', job_status = $3, failure = $4, updated_at = now()
         WHERE shop = $1 AND order_id = $2 AND failure IS NULL`,
        [o.shop, o.orderId, `failed: ${failure.message}`.slice(0, 300), { ...failure, at }],
      );
      if (rowCount !== 1) return false;
      await tx.query('UPDATE integrations SET last_error = $2 WHERE shop = $1', [
        o.shop,
        { ...failure, orderId: o.orderId, orderName: o.orderName, at },
      ]);
      await recordEvent(tx, 'platform', {
        type: 'platform.order.failed',
        enterpriseId: owner.enterpriseId,
        livemode: owner.livemode,
        data: {
          shop: o.shop,
          orderId: o.orderId,
          orderNumber: o.orderNumber,
          orderName: o.orderName,
          error: { code: failure.code, message: failure.message, param: failure.param ?? null },
        },
      });
      return true;
    });
  }

  /** A later order of the shop became its job: the integration's last error is history. */
  async clearLastError(shop: string) {
    await this.pool.query(
      'UPDATE integrations SET last_error = NULL WHERE shop = $1 AND last_error IS NOT NULL',
      [shop],
    );
  }

  async markSubmitted(shop: string, orderId: string) {
    await this.pool.query('UPDATE orders SET workflow_submitted = true WHERE shop = $1 AND order_id = $2', [
      shop,
      orderId,
    ]);
  }

  async unsubmitted(limit: number): Promise<{ shop: string; orderId: string }[]> {
    const { rows } = await this.pool.query(
      "SELECT shop, order_id FROM orders WHERE status = 'paid' AND NOT workflow_submitted ORDER BY created_at LIMIT $1",
      [limit],
    );
    return rows.map((r) => ({ shop: r.shop, orderId: r.order_id }));
  }

  async markVoided(shop: string, orderId: string) {
    await this.pool.query('UPDATE orders SET vouchers_voided = true WHERE shop = $1 AND order_id = $2', [
      shop,
      orderId,
    ]);
  }

  async unvoided(limit: number): Promise<{ shop: string; orderId: string }[]> {
    const { rows } = await this.pool.query(
      `SELECT shop, order_id FROM orders WHERE status = 'cancelled' AND NOT vouchers_voided
         AND cardinality(voucher_ids) > 0 ORDER BY updated_at LIMIT $1`,
      [limit],
    );
    return rows.map((r) => ({ shop: r.shop, orderId: r.order_id }));
  }

  /** Whether a finished bulk job belongs to a paid order this service runs. */
  async isPaidOrder(q: Pool | PoolClient, shop: string, orderId: string): Promise<boolean> {
    const { rows } = await q.query(
      "SELECT 1 FROM orders WHERE shop = $1 AND order_id = $2 AND status <> 'created'",
      [shop, orderId],
    );
    return rows.length > 0;
  }
}
