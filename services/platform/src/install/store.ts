// All SQL of the install slice: states, integrations (secrets encrypted) and setup tokens.
import { notFound, sha256Hex, transaction, type Encryptor, type Pool, type PoolClient } from '@hallmark/kit';
import type { Principal } from '@hallmark/proto/common/v1/common';
import type { ProductTemplateMapping } from './domain/settings.js';

export interface IntegrationRecord {
  shop: string;
  enterpriseId: string;
  livemode: boolean;
  status: 'active' | 'uninstalled';
  apiKeyId: string | null;
  apiKeyProvisioned: boolean;
  autoFulfill: boolean;
  mapping: ProductTemplateMapping | null;
  /** The last paid order that could not become its job (orders store sets and clears it). */
  lastError: {
    code: string;
    message: string;
    param?: string;
    orderId: string;
    orderName: string | null;
    at: string;
  } | null;
  installedAt: Date;
  updatedAt: Date;
}

export interface SetupCredentials {
  enterpriseId: string;
  apiKeyId: string;
  apiKey: string;
  webhookSecret: string;
  shop: string;
}

export interface StateRecord {
  shop: string;
  principal: Principal;
  supplied: { apiKeyId?: string; apiKey?: string; webhookSecret?: string } | null;
}

const row = (r: any): IntegrationRecord => ({
  shop: r.shop,
  enterpriseId: r.enterprise_id,
  livemode: r.livemode,
  status: r.status,
  apiKeyId: r.api_key_id,
  apiKeyProvisioned: r.api_key_provisioned,
  autoFulfill: r.auto_fulfill,
  mapping: r.product_template_mapping,
  lastError: r.last_error ?? null,
  installedAt: r.installed_at,
  updatedAt: r.updated_at,
});

export class InstallStore {
  constructor(
    readonly pool: Pool,
    private readonly enc: Encryptor,
  ) {}

  async saveState(
    state: string,
    shop: string,
    principal: Principal,
    supplied: StateRecord['supplied'],
    ttlS: number,
  ) {
    await this.pool.query(
      `INSERT INTO oauth_states (state_hash, shop, principal, supplied_enc, expires_at)
       VALUES ($1, $2, $3, $4, now() + make_interval(secs => $5))`,
      [
        sha256Hex(state),
        shop,
        JSON.stringify(principal),
        supplied ? this.enc.encrypt(JSON.stringify(supplied)) : null,
        ttlS,
      ],
    );
    // Expired states are not worth a sweeper: each new one clears the old.
    await this.pool.query('DELETE FROM oauth_states WHERE expires_at < now()');
  }

  /** Consumes a state (single use); null when unknown, used or expired. */
  async takeState(state: string): Promise<StateRecord | null> {
    const { rows } = await this.pool.query(
      'DELETE FROM oauth_states WHERE state_hash = $1 AND expires_at > now() RETURNING shop, principal, supplied_enc',
      [sha256Hex(state)],
    );
    const r = rows[0];
    if (!r) return null;
    return {
      shop: r.shop,
      principal: r.principal,
      supplied: r.supplied_enc ? JSON.parse(this.enc.decrypt(r.supplied_enc)) : null,
    };
  }

  /** The shop's integration if it is active and another enterprise's (installing it is refused). */
  async ownedByOther(shop: string, enterpriseId: string): Promise<boolean> {
    const { rows } = await this.pool.query(
      "SELECT 1 FROM integrations WHERE shop = $1 AND enterprise_id <> $2 AND status = 'active'",
      [shop, enterpriseId],
    );
    return rows.length > 0;
  }

  /**
   * Stores an install and its setup token together. Answers the replaced provisioned key (to
   * revoke), or false when the shop is meanwhile active for another enterprise.
   */
  async install(
    i: {
      shop: string;
      principal: Principal;
      accessToken: string;
      scopes: string;
      apiKeyId: string;
      provisioned: boolean;
      webhookSecret: string;
    },
    setup: { token: string; credentials: SetupCredentials; ttlS: number },
  ): Promise<{ replacedKeyId: string | null } | false> {
    return transaction(this.pool, async (tx) => {
      const prev = await tx.query(
        'SELECT api_key_id, api_key_provisioned FROM integrations WHERE shop = $1 FOR UPDATE',
        [i.shop],
      );
      const { rows } = await tx.query(
        `INSERT INTO integrations (shop, enterprise_id, livemode, status, access_token_enc, scopes, api_key_id,
           api_key_provisioned, webhook_secret_enc, installed_by)
         VALUES ($1, $2, $3, 'active', $4, $5, $6, $7, $8, $9)
         ON CONFLICT (shop) DO UPDATE SET enterprise_id = EXCLUDED.enterprise_id, livemode = EXCLUDED.livemode,
           status = 'active', access_token_enc = EXCLUDED.access_token_enc, scopes = EXCLUDED.scopes,
           api_key_id = EXCLUDED.api_key_id, api_key_provisioned = EXCLUDED.api_key_provisioned,
           webhook_secret_enc = EXCLUDED.webhook_secret_enc, installed_by = EXCLUDED.installed_by,
           installed_at = now(), updated_at = now()
         WHERE integrations.enterprise_id = EXCLUDED.enterprise_id OR integrations.status = 'uninstalled'
         RETURNING shop`,
        [
          i.shop,
          i.principal.enterprise_id,
          i.principal.livemode,
          this.enc.encrypt(i.accessToken),
          i.scopes,
          i.apiKeyId,
          i.provisioned,
          this.enc.encrypt(i.webhookSecret),
          i.principal.actor_id,
        ],
      );
      if (rows.length === 0) return false;
      await tx.query(
        `INSERT INTO setup_tokens (token_hash, shop, credentials_enc, expires_at)
         VALUES ($1, $2, $3, now() + make_interval(secs => $4))`,
        [sha256Hex(setup.token), i.shop, this.enc.encrypt(JSON.stringify(setup.credentials)), setup.ttlS],
      );
      await tx.query('DELETE FROM setup_tokens WHERE expires_at < now()');
      const p = prev.rows[0];
      return { replacedKeyId: p?.api_key_provisioned && p.api_key_id !== i.apiKeyId ? p.api_key_id : null };
    });
  }

  /** Consumes a setup token (single use); null when unknown, used or expired. */
  async takeSetupToken(token: string): Promise<SetupCredentials | null> {
    const { rows } = await this.pool.query(
      'DELETE FROM setup_tokens WHERE token_hash = $1 AND expires_at > now() RETURNING credentials_enc',
      [sha256Hex(token)],
    );
    return rows[0] ? (JSON.parse(this.enc.decrypt(rows[0].credentials_enc)) as SetupCredentials) : null;
  }

  /** The enterprise's integration of `shop`; another enterprise's (or none) is not found. */
  async forTenant(shop: string, enterpriseId: string): Promise<IntegrationRecord> {
    const { rows } = await this.pool.query(
      'SELECT * FROM integrations WHERE shop = $1 AND enterprise_id = $2',
      [shop, enterpriseId],
    );
    if (!rows[0]) throw notFound('platform integration', shop);
    return row(rows[0]);
  }

  /**
   * A page of the enterprise's integrations, newest install first, and how many it has. Only
   * the columns an integration is shown with: no ciphertext of a token or secret is read.
   */
  async listForTenant(
    enterpriseId: string,
    page: { page: number; limit: number },
  ): Promise<{ integrations: IntegrationRecord[]; total: number }> {
    const { rows } = await this.pool.query(
      `SELECT shop, enterprise_id, livemode, status, api_key_id, api_key_provisioned, auto_fulfill,
         product_template_mapping, last_error, installed_at, updated_at, count(*) OVER ()::int AS total
       FROM integrations WHERE enterprise_id = $1
       ORDER BY installed_at DESC, shop LIMIT $2 OFFSET $3`,
      [enterpriseId, page.limit, (page.page - 1) * page.limit],
    );
    return { integrations: rows.map(row), total: rows[0]?.total ?? 0 };
  }

  async forShop(shop: string, q: Pool | PoolClient = this.pool): Promise<IntegrationRecord | null> {
    const { rows } = await q.query('SELECT * FROM integrations WHERE shop = $1', [shop]);
    return rows[0] ? row(rows[0]) : null;
  }

  /** The decrypted access token of an active integration, or null. */
  async accessToken(shop: string): Promise<string | null> {
    const { rows } = await this.pool.query(
      "SELECT access_token_enc FROM integrations WHERE shop = $1 AND status = 'active'",
      [shop],
    );
    return rows[0]?.access_token_enc ? this.enc.decrypt(rows[0].access_token_enc) : null;
  }

  async updateSettings(
    shop: string,
    enterpriseId: string,
    autoFulfill: boolean | undefined,
    mapping: ProductTemplateMapping | null | undefined,
  ) {
    const { rows } = await this.pool.query(
      `UPDATE integrations SET auto_fulfill = COALESCE($3, auto_fulfill),
         product_template_mapping = CASE WHEN $4 THEN $5::jsonb ELSE product_template_mapping END, updated_at = now()
       WHERE shop = $1 AND enterprise_id = $2 RETURNING *`,
      [
        shop,
        enterpriseId,
        autoFulfill ?? null,
        mapping !== undefined,
        mapping === undefined ? null : JSON.stringify(mapping),
      ],
    );
    if (!rows[0]) throw notFound('platform integration', shop);
    return row(rows[0]);
  }

  /** Uninstalled integrations whose provisioned key is still to be revoked. */
  async pendingRevocations(
    limit: number,
  ): Promise<{ shop: string; enterpriseId: string; livemode: boolean; keyId: string; user: string }[]> {
    const { rows } = await this.pool.query(
      `SELECT shop, enterprise_id, livemode, api_key_id, installed_by FROM integrations
       WHERE key_revoke_pending AND status = 'uninstalled' LIMIT $1`,
      [limit],
    );
    return rows.map((r) => ({
      shop: r.shop,
      enterpriseId: r.enterprise_id,
      livemode: r.livemode,
      keyId: r.api_key_id,
      user: r.installed_by,
    }));
  }

  async keyRevoked(shop: string, keyId: string) {
    await this.pool.query(
      'UPDATE integrations SET key_revoke_pending = false WHERE shop = $1 AND api_key_id = $2',
      [shop, keyId],
    );
  }

  /** app/uninstalled: disabled, token wiped; answers the provisioned key to revoke. */
  async uninstall(
    tx: PoolClient,
    shop: string,
  ): Promise<{ enterpriseId: string; keyToRevoke: string | null; principalUser: string } | null> {
    const { rows } = await tx.query(
      `UPDATE integrations SET status = 'uninstalled', access_token_enc = NULL, updated_at = now(),
         key_revoke_pending = api_key_provisioned AND api_key_id IS NOT NULL
       WHERE shop = $1 RETURNING enterprise_id, api_key_id, api_key_provisioned, installed_by, livemode`,
      [shop],
    );
    const r = rows[0];
    if (!r) return null;
    return {
      enterpriseId: r.enterprise_id,
      keyToRevoke: r.api_key_provisioned ? r.api_key_id : null,
      principalUser: r.installed_by,
    };
  }
}
