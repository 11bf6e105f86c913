// All SQL of webhook endpoints and enterprise subscriptions. Every query is scoped by
// (enterprise_id, livemode); secrets are encrypted on the way in and never read back
// here (the delivery worker decrypts them to sign, deliveries.ts).
import { newId, notFound, notFoundInOtherMode, type Encryptor, type Pool } from '@hallmark/kit';
import type { EndpointStatus } from './domain/validation.js';

export interface Scope {
  enterpriseId: string;
  livemode: boolean;
}

export interface EndpointRecord {
  id: string;
  url: string;
  events: string[];
  description: string | null;
  status: EndpointStatus;
  livemode: boolean;
  createdAt: Date;
  updatedAt: Date;
  previousSecretExpiresAt: Date | null;
}

export interface SubscriptionRecord {
  id: string;
  url: string;
  events: string[];
  enabled: boolean;
  createdAt: Date;
  /** active; failing (failed attempts in a row past the threshold); disabled (not enabled). */
  status: 'active' | 'failing' | 'disabled';
  consecutiveFailures: number;
  lastFailureAt: Date | null;
  lastError: string | null;
}

interface EndpointRow {
  id: string;
  url: string;
  events: string[];
  description: string | null;
  status: EndpointStatus;
  livemode: boolean;
  created_at: Date;
  updated_at: Date;
  previous_secret_expires_at: Date | null;
  db_now: Date;
}

const ENDPOINT_COLUMNS = `id, url, events, description, status, livemode, created_at, updated_at,
  previous_secret_expires_at, now() AS db_now`;

function endpointFromRow(r: EndpointRow): EndpointRecord {
  const live = r.previous_secret_expires_at && r.previous_secret_expires_at > r.db_now;
  return {
    id: r.id,
    url: r.url,
    events: r.events,
    description: r.description,
    status: r.status,
    livemode: r.livemode,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    previousSecretExpiresAt: live ? r.previous_secret_expires_at : null,
  };
}

export interface EndpointPatch {
  url?: string;
  events?: string[];
  description?: string;
  status?: 'active' | 'disabled';
}

export class WebhooksStore {
  constructor(
    private readonly pool: Pool,
    private readonly encryptor: Encryptor,
  ) {}

  async createEndpoint(
    scope: Scope,
    input: { url: string; events: string[]; description?: string; secret: string },
  ): Promise<EndpointRecord> {
    const { rows } = await this.pool.query<EndpointRow>(
      `INSERT INTO webhook_endpoints (id, enterprise_id, livemode, url, events, description, secret_enc)
       VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING ${ENDPOINT_COLUMNS}`,
      [
        newId('webhook'),
        scope.enterpriseId,
        scope.livemode,
        input.url,
        input.events,
        input.description ?? null,
        this.encryptor.encrypt(input.secret),
      ],
    );
    return endpointFromRow(rows[0]!);
  }

  async listEndpoints(
    scope: Scope,
    page: { page: number; limit: number },
  ): Promise<{ endpoints: EndpointRecord[]; total: number }> {
    const { rows } = await this.pool.query<EndpointRow & { total: number }>(
      `SELECT ${ENDPOINT_COLUMNS}, count(*) OVER ()::int AS total FROM webhook_endpoints
       WHERE enterprise_id = $1 AND livemode = $2 ORDER BY created_at DESC, id LIMIT $3 OFFSET $4`,
      [scope.enterpriseId, scope.livemode, page.limit, (page.page - 1) * page.limit],
    );
    const total =
      rows[0]?.total ??
      (
        await this.pool.query<{ n: number }>(
          'SELECT count(*)::int AS n FROM webhook_endpoints WHERE enterprise_id = $1 AND livemode = $2',
          [scope.enterpriseId, scope.livemode],
        )
      ).rows[0]!.n;
    return { endpoints: rows.map(endpointFromRow), total };
  }

  async getEndpoint(scope: Scope, id: string): Promise<EndpointRecord> {
    const { rows } = await this.pool.query<EndpointRow>(
      `SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE id = $1 AND enterprise_id = $2 AND livemode = $3`,
      [id, scope.enterpriseId, scope.livemode],
    );
    if (!rows[0]) {
      const other = await this.pool.query(
        'SELECT 1 FROM webhook_endpoints WHERE id = $1 AND enterprise_id = $2 AND livemode <> $3',
        [id, scope.enterpriseId, scope.livemode],
      );
      throw other.rows[0]
        ? notFoundInOtherMode('webhook endpoint', id, scope.livemode)
        : notFound('webhook endpoint', id);
    }
    return endpointFromRow(rows[0]);
  }

  /** Setting `active` also clears `failed`; `disabled` stops fan-out and attempts. */
  async updateEndpoint(scope: Scope, id: string, patch: EndpointPatch): Promise<EndpointRecord> {
    const { rows } = await this.pool.query<EndpointRow>(
      `UPDATE webhook_endpoints SET
         url = COALESCE($4, url),
         events = COALESCE($5, events),
         description = COALESCE($6, description),
         status = COALESCE($7, status),
         updated_at = now()
       WHERE id = $1 AND enterprise_id = $2 AND livemode = $3 RETURNING ${ENDPOINT_COLUMNS}`,
      [
        id,
        scope.enterpriseId,
        scope.livemode,
        patch.url ?? null,
        patch.events ?? null,
        patch.description ?? null,
        patch.status ?? null,
      ],
    );
    if (!rows[0]) {
      const other = await this.pool.query(
        'SELECT 1 FROM webhook_endpoints WHERE id = $1 AND enterprise_id = $2 AND livemode <> $3',
        [id, scope.enterpriseId, scope.livemode],
      );
      throw other.rows[0]
        ? notFoundInOtherMode('webhook endpoint', id, scope.livemode)
        : notFound('webhook endpoint', id);
    }
    return endpointFromRow(rows[0]);
  }

  async deleteEndpoint(scope: Scope, id: string): Promise<void> {
    const { rowCount } = await this.pool.query(
      'DELETE FROM webhook_endpoints WHERE id = $1 AND enterprise_id = $2 AND livemode = $3',
      [id, scope.enterpriseId, scope.livemode],
    );
    if (!rowCount) throw notFound('webhook endpoint', id);
  }

  /** The current secret becomes the previous one, valid `overlapS` more seconds. */
  async rotateSecret(scope: Scope, id: string, secret: string, overlapS: number): Promise<EndpointRecord> {
    const { rows } = await this.pool.query<EndpointRow>(
      `UPDATE webhook_endpoints SET
         previous_secret_enc = CASE WHEN $5::int > 0 THEN secret_enc END,
         previous_secret_expires_at = CASE WHEN $5::int > 0 THEN now() + make_interval(secs => $5::int) END,
         secret_enc = $4, updated_at = now()
       WHERE id = $1 AND enterprise_id = $2 AND livemode = $3 RETURNING ${ENDPOINT_COLUMNS}`,
      [id, scope.enterpriseId, scope.livemode, this.encryptor.encrypt(secret), overlapS],
    );
    if (!rows[0]) {
      const other = await this.pool.query(
        'SELECT 1 FROM webhook_endpoints WHERE id = $1 AND enterprise_id = $2 AND livemode <> $3',
        [id, scope.enterpriseId, scope.livemode],
      );
      throw other.rows[0]
        ? notFoundInOtherMode('webhook endpoint', id, scope.livemode)
        : notFound('webhook endpoint', id);
    }
    return endpointFromRow(rows[0]);
  }

  async createSubscription(
    scope: Scope,
    input: { url: string; events: string[]; enabled: boolean; secret: string },
  ): Promise<SubscriptionRecord> {
    const { rows } = await this.pool.query<SubscriptionRow>(
      `INSERT INTO enterprise_subscriptions (id, enterprise_id, livemode, url, events, enabled, secret_enc)
       VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING ${SUBSCRIPTION_COLUMNS}`,
      [
        newId('enterpriseWebhook'),
        scope.enterpriseId,
        scope.livemode,
        input.url,
        input.events,
        input.enabled,
        this.encryptor.encrypt(input.secret),
      ],
    );
    if (!input.enabled) return this.setEnabled(scope, rows[0]!.id, false);
    return subscriptionFromRow(rows[0]!);
  }

  /**
   * Enabling clears the failure count and `failing`/`disabled`; disabling stops the fan-out
   * to it (pending deliveries wait, as a disabled endpoint's do).
   */
  async setEnabled(scope: Scope, id: string, enabled: boolean): Promise<SubscriptionRecord> {
    const { rows } = await this.pool.query<SubscriptionRow>(
      `UPDATE enterprise_subscriptions SET enabled = $4,
         status = CASE WHEN $4 THEN 'active' ELSE 'disabled' END,
         consecutive_failures = CASE WHEN $4 THEN 0 ELSE consecutive_failures END
       WHERE id = $1 AND enterprise_id = $2 AND livemode = $3 RETURNING ${SUBSCRIPTION_COLUMNS}`,
      [id, scope.enterpriseId, scope.livemode, enabled],
    );
    if (!rows[0]) throw await this.subscriptionMissing(scope, id);
    return subscriptionFromRow(rows[0]);
  }

  async listSubscriptions(scope: Scope): Promise<SubscriptionRecord[]> {
    const { rows } = await this.pool.query<SubscriptionRow>(
      `SELECT ${SUBSCRIPTION_COLUMNS} FROM enterprise_subscriptions
       WHERE enterprise_id = $1 AND livemode = $2 ORDER BY created_at DESC, id`,
      [scope.enterpriseId, scope.livemode],
    );
    return rows.map(subscriptionFromRow);
  }

  async getSubscription(scope: Scope, id: string): Promise<SubscriptionRecord> {
    const { rows } = await this.pool.query<SubscriptionRow>(
      `SELECT ${SUBSCRIPTION_COLUMNS} FROM enterprise_subscriptions
       WHERE id = $1 AND enterprise_id = $2 AND livemode = $3`,
      [id, scope.enterpriseId, scope.livemode],
    );
    if (!rows[0]) throw await this.subscriptionMissing(scope, id);
    return subscriptionFromRow(rows[0]);
  }

  async deleteSubscription(scope: Scope, id: string): Promise<void> {
    const { rowCount } = await this.pool.query(
      'DELETE FROM enterprise_subscriptions WHERE id = $1 AND enterprise_id = $2 AND livemode = $3',
      [id, scope.enterpriseId, scope.livemode],
    );
    if (!rowCount) throw await this.subscriptionMissing(scope, id);
  }

  /**
   * The 404 of a subscription this enterprise does not have in the request's mode. The same
   * enterprise sees its other mode's subscriptions by switching mode, so saying one exists
   * there reveals nothing new; another enterprise's id stays a plain 404.
   */
  private async subscriptionMissing(scope: Scope, id: string) {
    const other = await this.pool.query(
      'SELECT 1 FROM enterprise_subscriptions WHERE id = $1 AND enterprise_id = $2 AND livemode <> $3',
      [id, scope.enterpriseId, scope.livemode],
    );
    return other.rows[0] ? notFoundInOtherMode('webhook', id, scope.livemode) : notFound('webhook', id);
  }
}

interface SubscriptionRow {
  id: string;
  url: string;
  events: string[];
  enabled: boolean;
  created_at: Date;
  status: SubscriptionRecord['status'];
  consecutive_failures: number;
  last_failure_at: Date | null;
  last_error: string | null;
}

const SUBSCRIPTION_COLUMNS = `id, url, events, enabled, created_at, status, consecutive_failures,
  last_failure_at, last_error`;

const subscriptionFromRow = (r: SubscriptionRow): SubscriptionRecord => ({
  id: r.id,
  url: r.url,
  events: r.events,
  enabled: r.enabled,
  createdAt: r.created_at,
  status: r.status,
  consecutiveFailures: r.consecutive_failures,
  lastFailureAt: r.last_failure_at,
  lastError: r.last_error,
});
