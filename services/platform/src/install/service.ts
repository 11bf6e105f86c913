// The install use cases: authorize (a state bound to the user and enterprise), the signed
// callback (code exchange, key and secret provisioning, webhook registration, setup token),
// credentials by setup token, auto-provision, webhook re-registration and settings.
import { HallmarkError, notFound, randomHex, type AsyncClient, type Logger } from '@hallmark/kit';
import type { Principal } from '@hallmark/proto/common/v1/common';
import type { KeysServiceClient } from '@hallmark/proto/keys/v1/keys';
import { AdminApiError, type AdminApi } from '../admin-api/client.js';
import { parseShop, parseSupplied, SCOPES, verifyCallback } from './domain/oauth.js';
import { parsePage } from '@hallmark/kit/page';
import { parseMapping } from './domain/settings.js';
import type { InstallStore, IntegrationRecord, SetupCredentials } from './store.js';

export interface InstallConfig {
  publicUrl: string;
  appUrl: string;
  apiKey: string;
  apiSecret: string;
  shopSuffix: string;
  stateTtlS: number;
  setupTokenTtlS: number;
  callbackMaxAgeS: number;
}

export const PROVISIONED_SCOPES = ['bulk:mint', 'bulk:retry'];

export class InstallService {
  constructor(
    private readonly store: InstallStore,
    private readonly admin: AdminApi,
    private readonly keys: AsyncClient<KeysServiceClient>,
    private readonly cfg: InstallConfig,
    private readonly log: Logger,
  ) {}

  get callbackUrl() {
    return `${this.cfg.publicUrl}/api/platform/auth/callback`;
  }

  get webhookUrl() {
    return `${this.cfg.publicUrl}/api/platform/webhooks`;
  }

  /** The integration is off while the app's key or secret is not configured. */
  private assertConfigured() {
    if (!this.cfg.apiKey || !this.cfg.apiSecret)
      throw new HallmarkError('service_unavailable', {
        message: 'The e-commerce platform integration is not configured.',
      });
  }

  async authorize(
    principal: Principal,
    shopRaw: string,
    supplied: { apiKeyId?: string; apiKey?: string; webhookSecret?: string },
  ) {
    const shop = parseShop(shopRaw, this.cfg.shopSuffix);
    const given = parseSupplied(supplied);
    this.assertConfigured();
    if (await this.store.ownedByOther(shop, principal.enterprise_id))
      throw notFound('platform integration', shop);
    const state = randomHex(32);
    await this.store.saveState(state, shop, principal, given, this.cfg.stateTtlS);
    return this.admin.authorizeUrl(shop, SCOPES, this.callbackUrl, state);
  }

  async callback(query: Record<string, string>): Promise<string> {
    this.assertConfigured();
    // Signature and freshness first: a forged or replayed query touches nothing.
    verifyCallback(query, this.cfg.apiSecret, Math.floor(Date.now() / 1000), this.cfg.callbackMaxAgeS);
    const state = await this.store.takeState(query.state!);
    if (!state || state.shop !== query.shop)
      throw new HallmarkError('invalid_token', {
        message: 'The install callback was refused: unknown or used state.',
      });
    const { shop, principal } = state;
    const token = await this.upstream('code exchange', () => this.admin.exchangeCode(shop, query.code!));

    const supplied = state.supplied;
    const key = supplied?.apiKeyId
      ? { id: supplied.apiKeyId, secret: supplied.apiKey!, provisioned: false }
      : await this.provisionKey(principal, shop);
    const webhookSecret = supplied?.webhookSecret ?? randomHex(32);
    const setupToken = randomHex(32);
    const credentials: SetupCredentials = {
      enterpriseId: principal.enterprise_id,
      apiKeyId: key.id,
      apiKey: key.secret,
      webhookSecret,
      shop,
    };
    const stored = await this.store.install(
      {
        shop,
        principal,
        accessToken: token.accessToken,
        scopes: token.scope,
        apiKeyId: key.id,
        provisioned: key.provisioned,
        webhookSecret,
      },
      { token: setupToken, credentials, ttlS: this.cfg.setupTokenTtlS },
    );
    if (!stored) {
      if (key.provisioned) await this.revokeKey(principal, key.id);
      throw notFound('platform integration', shop);
    }
    if (stored.replacedKeyId) await this.revokeKey(principal, stored.replacedKeyId);
    try {
      await this.admin.registerWebhooks(shop, token.accessToken, this.webhookUrl);
    } catch (err) {
      // The install stands; POST /api/platform/webhooks/register repairs the subscriptions.
      this.log.warn({ err, shop }, 'install: webhook registration failed');
    }
    const back = new URL(this.cfg.appUrl);
    back.searchParams.set('token', setupToken);
    back.searchParams.set('shop', shop);
    return back.toString();
  }

  async credentials(token: string): Promise<SetupCredentials & { returnUrl: string }> {
    if (!/^[0-9a-f]{64}$/.test(token)) throw notFound('setup token');
    const c = await this.store.takeSetupToken(token);
    if (!c) throw notFound('setup token');
    return { ...c, returnUrl: `${this.admin.adminBase(c.shop)}/apps` };
  }

  async autoProvision(principal: Principal) {
    const key = await this.provisionKey(principal, null);
    return {
      enterpriseId: principal.enterprise_id,
      apiKeyId: key.id,
      apiKey: key.secret,
      webhookSecret: randomHex(32),
    };
  }

  async registerWebhooks(principal: Principal, shopRaw: string): Promise<{ shop: string; topics: string[] }> {
    const shop = parseShop(shopRaw, this.cfg.shopSuffix);
    const i = await this.store.forTenant(shop, principal.enterprise_id);
    const token = i.status === 'active' ? await this.store.accessToken(shop) : null;
    if (!token)
      throw new HallmarkError('validation_failed', {
        message: 'The shop has uninstalled the app; install it again.',
        param: 'shop',
      });
    const topics = await this.upstream('webhook registration', () =>
      this.admin.registerWebhooks(shop, token, this.webhookUrl),
    );
    return { shop, topics };
  }

  async updateSettings(
    principal: Principal,
    shopRaw: string,
    autoFulfill: boolean | undefined,
    mappingJson: string | undefined,
  ): Promise<IntegrationRecord> {
    const shop = parseShop(shopRaw, this.cfg.shopSuffix);
    let mapping;
    if (mappingJson !== undefined) {
      let raw: unknown;
      try {
        raw = JSON.parse(mappingJson);
      } catch {
        throw new HallmarkError('parameter_invalid', {
          param: 'productTemplateMapping',
          message: 'productTemplateMapping is not JSON.',
        });
      }
      mapping = parseMapping(raw);
    }
    return this.store.updateSettings(shop, principal.enterprise_id, autoFulfill, mapping);
  }

  /** The principal's shop's integration (another enterprise's: not found). */
  async integration(principal: Principal, shopRaw: string): Promise<IntegrationRecord> {
    return this.store.forTenant(parseShop(shopRaw, this.cfg.shopSuffix), principal.enterprise_id);
  }

  /** A page of the principal's enterprise's integrations, newest install first. */
  async integrations(principal: Principal, rawPage: { page?: number; limit?: number } | undefined) {
    const page = parsePage(rawPage);
    return { ...(await this.store.listForTenant(principal.enterprise_id, page)), page };
  }

  /**
   * Whether the platform still accepts the shop's access token, i.e. the app is installed.
   * An `app/uninstalled` body is signed but carries no time, so a leaked one could be sent
   * again after a reinstall; the platform revokes the token before it sends the real one, so
   * a token that still works means the delivery is a replay. 401/403: not installed; any
   * other answer decides nothing, so service_unavailable and the platform retries.
   */
  async stillInstalled(shop: string): Promise<boolean> {
    const token = await this.store.accessToken(shop);
    if (!token) return false;
    try {
      await this.admin.graphql(shop, token, '{ webhookSubscriptions(first: 1) { edges { node { id } } } }');
      return true;
    } catch (err) {
      if (err instanceof AdminApiError && (err.status === 401 || err.status === 403)) return false;
      throw new HallmarkError('service_unavailable', {
        message: 'The platform could not confirm the uninstall; retry later.',
        cause: err,
      });
    }
  }

  private async provisionKey(principal: Principal, shop: string | null) {
    const res = await this.keys.createKey({
      principal,
      name: shop ? `Platform: ${shop}` : 'Platform integration',
      type: 'enterprise',
      permissions: PROVISIONED_SCOPES,
      rate_limit: 0,
      expires_at: '',
      allowed_ips: [],
      requests_per_hour: 0,
      burst_limit: 0,
      ip_address: '',
    });
    return { id: res.key!.id, secret: res.secret, provisioned: true };
  }

  private async revokeKey(principal: Principal, keyId: string) {
    await this.keys
      .revokeKey({ principal, key_id: keyId, ip_address: '' })
      .catch((err: unknown) => this.log.warn({ err, keyId }, 'install: revoking a replaced key failed'));
  }

  /** A platform failure as the caller sees it: refusals 502 upstream_error, silence 504. */
  private async upstream<T>(what: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      if (!(err instanceof AdminApiError)) throw err;
      this.log.warn({ err, what }, 'platform call failed');
      throw new HallmarkError(err.kind === 'timeout' ? 'upstream_timeout' : 'upstream_error', {
        message: `The platform did not complete the ${what}.`,
      });
    }
  }
}
