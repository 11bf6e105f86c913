// gRPC handlers of KeysService: proto messages in, service calls, proto messages out.
// The proto's "unset" values (0, '') become null/undefined here and nowhere else.
import { bind, type AsyncHandlers, type ServiceBinding } from '@hallmark/kit';
import type { Principal } from '@hallmark/proto/common/v1/common';
import {
  KeysServiceService,
  type ApiKey,
  type KeyAuth,
  type KeysServiceServer,
  type UsageRecord,
} from '@hallmark/proto/keys/v1/keys';
import type { PrincipalInput } from './domain/access.js';
import { keyStatus, type ApiKeyRecord } from './domain/keys.js';
import { isoOrEmpty } from './domain/time.js';
import type { UsageRecordInput } from './domain/usage.js';
import { createProfileHandlers } from './profile/rpc.js';
import type { ProfileService } from './profile/service.js';
import type { KeysService, KeyView } from './service.js';

const principalOf = (p: Principal | undefined): PrincipalInput | undefined =>
  p && {
    enterpriseId: p.enterprise_id,
    livemode: p.livemode,
    actorId: p.actor_id,
    actorType: p.actor_type,
    scopes: p.scopes,
  };

const orNull = (n: number): number | null => (n === 0 ? null : n);

export function toApiKey({ key, accessLevel }: KeyView, now: Date): ApiKey {
  return {
    id: key.id,
    name: key.name,
    type: key.type,
    permissions: key.permissions,
    rate_limit: key.limits.perMinute,
    expires_at: isoOrEmpty(key.expiresAt),
    created_at: key.createdAt.toISOString(),
    last_used_at: isoOrEmpty(key.lastUsedAt),
    status: keyStatus(key, now),
    key_prefix: key.keyPrefix,
    allowed_ips: key.allowedIps,
    livemode: key.livemode,
    created_by: key.createdBy,
    requests_per_hour: key.limits.perHour,
    burst_limit: key.limits.burst,
    access_level: accessLevel,
    revoked_at: isoOrEmpty(key.revokedAt),
  };
}

export function toKeyAuth(key: ApiKeyRecord, graceUntil: Date | null): KeyAuth {
  return {
    key_id: key.id,
    enterprise_id: key.enterpriseId,
    type: key.type,
    livemode: key.livemode,
    permissions: key.permissions,
    rate_limit_per_minute: key.limits.perMinute,
    rate_limit_per_hour: key.limits.perHour,
    burst_limit: key.limits.burst,
    allowed_ips: key.allowedIps,
    expires_at: isoOrEmpty(key.expiresAt),
    grace_until: isoOrEmpty(graceUntil),
    created_by: key.createdBy,
  };
}

const toUsageInput = (r: UsageRecord): UsageRecordInput => ({
  keyId: r.key_id,
  method: r.method,
  path: r.path,
  statusCode: r.status_code,
  latencyMs: r.latency_ms,
  ipAddress: r.ip_address,
  at: r.at,
});

export function createKeysHandlers(
  service: KeysService,
  profiles: ProfileService,
): AsyncHandlers<KeysServiceServer> {
  const clock = () => service.now();
  return {
    ...createProfileHandlers(profiles, principalOf),
    async resolveSession(req) {
      const user = await service.resolveSession({
        subject: req.subject,
        enterpriseId: req.enterprise_id,
        email: req.email,
        role: req.role,
      });
      return { user_id: user.userId, enterprise_id: user.enterpriseId, role: user.role };
    },

    async verifyKey(req) {
      // ip_address is not checked here: answers are cached per secret hash, so the
      // gateway applies `allowed_ips` to every request itself (domain/ips.ts ipAllowed).
      const { key, graceUntil } = await service.verifyKey(req.secret_hash);
      return { key: toKeyAuth(key, graceUntil) };
    },

    async createKey(req) {
      const issued = await service.createKey(
        principalOf(req.principal),
        {
          name: req.name,
          type: req.type,
          permissions: req.permissions,
          rateLimit: orNull(req.rate_limit),
          expiresAt: req.expires_at || null,
          allowedIps: req.allowed_ips,
          requestsPerHour: orNull(req.requests_per_hour),
          burstLimit: orNull(req.burst_limit),
        },
        req.ip_address || null,
      );
      return { key: toApiKey(issued.view, clock()), secret: issued.secret, grace_until: '' };
    },

    async listKeys(req) {
      const views = await service.listKeys(principalOf(req.principal));
      const now = clock();
      return { keys: views.map((v) => toApiKey(v, now)) };
    },

    async getKey(req) {
      return toApiKey(await service.getKey(principalOf(req.principal), req.key_id), clock());
    },

    async updateKey(req) {
      const view = await service.updateKey(
        principalOf(req.principal),
        req.key_id,
        {
          name: req.name,
          permissions: req.set_permissions ? req.permissions : undefined,
          rateLimit: req.rate_limit,
          allowedIps: req.set_allowed_ips ? req.allowed_ips : undefined,
        },
        req.ip_address,
      );
      return toApiKey(view, clock());
    },

    async revokeKey(req) {
      return toApiKey(
        await service.revokeKey(principalOf(req.principal), req.key_id, req.ip_address),
        clock(),
      );
    },

    async rotateKey(req) {
      const issued = await service.rotateKey(
        principalOf(req.principal),
        req.key_id,
        req.grace_period_seconds,
        req.ip_address,
      );
      return {
        key: toApiKey(issued.view, clock()),
        secret: issued.secret,
        grace_until: isoOrEmpty(issued.graceUntil),
      };
    },

    async shareKey(req) {
      const shares = await service.shareKey(
        principalOf(req.principal),
        req.key_id,
        req.user_ids,
        req.permissions,
        req.ip_address,
      );
      return {
        key_id: req.key_id,
        shares: shares.map((s) => ({
          user_id: s.userId,
          level: s.level,
          permissions: s.permissions,
          created_at: s.createdAt.toISOString(),
        })),
      };
    },

    async getUsage(req) {
      const u = await service.getUsage(principalOf(req.principal), req.key_id, req.period);
      return {
        key_id: u.keyId,
        period: u.period,
        total_requests: u.totalRequests,
        successful_requests: u.successfulRequests,
        failed_requests: u.failedRequests,
        average_latency: u.averageLatency,
        endpoints: u.endpoints.map((e) => ({
          path: e.path,
          method: e.method,
          requests: e.requests,
          avg_latency: e.avgLatency,
        })),
      };
    },

    async checkActors(req) {
      const actors = await service.checkActors(principalOf(req.principal), req.actor_ids);
      return { known_ids: [...new Set(actors.map((a) => a.id))], actors };
    },

    async listAuditLogs(req) {
      const entries = await service.listAuditLogs(principalOf(req.principal), req.key_id, req.limit);
      return {
        logs: entries.map((e) => ({
          timestamp: e.at.toISOString(),
          action: e.action,
          user_id: e.userId ?? '',
          ip_address: e.ipAddress ?? '',
          endpoint: e.endpoint ?? '',
          status_code: e.statusCode ?? 0,
        })),
      };
    },

    async recordUsage(req) {
      return { accepted: await service.recordUsage(req.batch_id, req.records.map(toUsageInput)) };
    },
  };
}

/** The service binding main.ts serves (and tests start a real server with). */
export const keysServiceBinding = (service: KeysService, profiles: ProfileService): ServiceBinding =>
  bind<KeysServiceServer>(KeysServiceService, createKeysHandlers(service, profiles));
