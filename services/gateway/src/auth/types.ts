// What the auth plugin attaches to a request, and what a route declares it needs.
import type { Principal } from '@hallmark/proto/common/v1/common';
import type { KeyAuth } from '@hallmark/proto/keys/v1/keys';

/** `key`: API keys only; `session`: user JWT only; `either`; `public`: no credential. */
export type AuthMode = 'key' | 'session' | 'either' | 'public';

/** Endpoint groups with their own limits (spec › Limits). */
export type RateGroup =
  | 'voucher_read'
  | 'voucher_write'
  | 'voucher_redeem'
  | 'bulk_create'
  | 'bulk_poll'
  | 'bulk_download'
  | 'bulk_retry'
  | 'bulk_json'
  | 'allowlist_write'
  | 'verify_page'
  | 'platform_webhook'
  | 'public';

export interface AuthInfo {
  kind: 'api_key' | 'session';
  principal: Principal;
  key?: KeyAuth;
  /** Rate-limit subject: the key id, or the enterprise for sessions (never the client IP alone). */
  subject: string;
  userId?: string;
  role?: string;
  /** Sessions: the e-mail the token proves (SessionClaims.provenEmail); null when none. */
  email?: string | null;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    auth?: AuthMode;
    /** Scope(s) the route needs; any one of a list suffices. */
    scope?: string | string[];
    rateGroup?: RateGroup;
    /** When one route serves forms with different limits: the group for this request. */
    rateGroupFor?: (request: FastifyRequest) => RateGroup | undefined;
  }
  interface FastifyRequest {
    auth: AuthInfo | null;
  }
}
