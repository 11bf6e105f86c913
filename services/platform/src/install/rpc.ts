// gRPC handlers of the install RPCs: proto <-> InstallService, nothing else.
import { requirePrincipal, type AsyncHandlers } from '@hallmark/kit';
import type { Integration, PlatformServiceServer } from '@hallmark/proto/platform/v1/platform';
import type { InstallService } from './service.js';
import type { IntegrationRecord } from './store.js';

type InstallRpcs = Pick<
  AsyncHandlers<PlatformServiceServer>,
  | 'authorize'
  | 'callback'
  | 'getCredentials'
  | 'autoProvision'
  | 'registerWebhooks'
  | 'updateSettings'
  | 'getIntegration'
  | 'listIntegrations'
>;

export function integrationToProto(i: IntegrationRecord): Integration {
  return {
    shop: i.shop,
    enterprise_id: i.enterpriseId,
    api_key_id: i.apiKeyId ?? '',
    status: i.status,
    auto_fulfill: i.autoFulfill,
    product_template_mapping_json: i.mapping ? JSON.stringify(i.mapping) : undefined,
    installed_at: i.installedAt.toISOString(),
    updated_at: i.updatedAt.toISOString(),
    last_error: i.lastError
      ? {
          code: i.lastError.code,
          message: i.lastError.message,
          param: i.lastError.param ?? '',
          order_id: i.lastError.orderId,
          order_name: i.lastError.orderName ?? '',
          occurred_at: i.lastError.at,
        }
      : undefined,
  };
}

export function installHandlers(svc: InstallService): InstallRpcs {
  return {
    async authorize(req) {
      const authUrl = await svc.authorize(requirePrincipal(req.principal), req.shop, {
        apiKeyId: req.api_key_id,
        apiKey: req.api_key,
        webhookSecret: req.webhook_secret,
      });
      return { auth_url: authUrl };
    },
    async callback(req) {
      return { redirect_url: await svc.callback(req.query) };
    },
    async getCredentials(req) {
      const c = await svc.credentials(req.token);
      return {
        enterprise_id: c.enterpriseId,
        api_key_id: c.apiKeyId,
        api_key: c.apiKey,
        webhook_secret: c.webhookSecret,
        shop: c.shop,
        return_url: c.returnUrl,
      };
    },
    async autoProvision(req) {
      const c = await svc.autoProvision(requirePrincipal(req.principal));
      return {
        enterprise_id: c.enterpriseId,
        api_key_id: c.apiKeyId,
        api_key: c.apiKey,
        webhook_secret: c.webhookSecret,
        shop: '',
        return_url: '',
      };
    },
    async registerWebhooks(req) {
      return svc.registerWebhooks(requirePrincipal(req.principal), req.shop);
    },
    async getIntegration(req) {
      return integrationToProto(await svc.integration(requirePrincipal(req.principal), req.shop));
    },
    async listIntegrations(req) {
      const { integrations, total, page } = await svc.integrations(requirePrincipal(req.principal), req.page);
      return {
        integrations: integrations.map(integrationToProto),
        pagination: { ...page, total, total_pages: Math.ceil(total / page.limit) },
      };
    },
    async updateSettings(req) {
      return integrationToProto(
        await svc.updateSettings(
          requirePrincipal(req.principal),
          req.shop,
          req.auto_fulfill,
          req.product_template_mapping_json,
        ),
      );
    },
  };
}
