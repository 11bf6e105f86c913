// Typed env config of the gateway, validated once at start (all problems together).
import { commonEnv, grpcAddr, loadConfig, SERVICE_DEFAULT_PORT } from '@hallmark/kit';
import { isIP } from 'node:net';
import { z } from 'zod';

/** An address or a CIDR range (`10.0.0.0/8`, `fd00::/8`), as proxy-addr takes them. */
function addressOrCidr(entry: string): boolean {
  const [addr = '', bits, ...rest] = entry.split('/');
  const family = isIP(addr);
  if (family === 0 || rest.length > 0) return false;
  return bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128));
}

export const configSchema = z.object({
  ...commonEnv,
  HALLMARK_PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  HALLMARK_HOST: z.string().default('127.0.0.1'),
  // The proxies in front of the gateway (an Ingress controller's pods), comma-separated
  // addresses or CIDRs. Only a request whose peer is one of them has its client taken from
  // X-Forwarded-For (the nearest address not in the list); empty: the peer is the client and
  // X-Forwarded-For is ignored. Every per-client limit and a key's allowedIps see this client
  // (request.ip). docs/security.md › Proxies and client identity.
  HALLMARK_TRUSTED_PROXIES: z
    .string()
    .default('')
    .transform((v) =>
      v
        .split(',')
        .map((e) => e.trim())
        .filter(Boolean),
    )
    .superRefine((list, ctx) => {
      for (const entry of list.filter((e) => !addressOrCidr(e)))
        ctx.addIssue({ code: 'custom', message: `not an IP address or CIDR range: '${entry.slice(0, 64)}'` });
    }),
  HALLMARK_KEYS_ADDR: grpcAddr(SERVICE_DEFAULT_PORT.keys),
  HALLMARK_VOUCHERS_ADDR: grpcAddr(SERVICE_DEFAULT_PORT.vouchers),
  HALLMARK_CERTIFICATES_ADDR: grpcAddr(SERVICE_DEFAULT_PORT.certificates),
  HALLMARK_BULK_ADDR: grpcAddr(SERVICE_DEFAULT_PORT.bulk),
  HALLMARK_NOTIFY_ADDR: grpcAddr(SERVICE_DEFAULT_PORT.notify),
  HALLMARK_PLATFORM_ADDR: grpcAddr(SERVICE_DEFAULT_PORT.platform),
  HALLMARK_JWT_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  /** The secret being rotated out: its tokens are still accepted until it is unset. */
  HALLMARK_JWT_PREVIOUS_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  HALLMARK_JWKS_URL: z.string().url().optional(),
  // The console's sign-in (routes/console): the OpenID provider whose tokens HALLMARK_JWKS_URL
  // verifies, the console's client id there (a public client: code + PKCE, no secret) and the
  // scopes it asks for. Unset issuer: the console says sign-in is not configured.
  HALLMARK_CONSOLE_OIDC_ISSUER: z.string().url().optional(),
  HALLMARK_CONSOLE_OIDC_CLIENT_ID: z.string().min(1).max(200).default('hallmark-console'),
  HALLMARK_CONSOLE_OIDC_SCOPE: z.string().min(1).max(500).default('openid email profile'),
  // Where the console's build is (routes/console: the tree's console/, else the workspace's).
  HALLMARK_CONSOLE_DIR: z.string().min(1).optional(),
  REDIS_URL: z.string().url().optional(),
  HALLMARK_BODY_LIMIT_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(1024 * 1024),
  HALLMARK_GRPC_DEADLINE_MS: z.coerce.number().int().positive().default(10_000),
  HALLMARK_KEY_CACHE_TTL_MS: z.coerce.number().int().min(0).default(5_000),
  // Failed authentication (auth/throttle.ts): refusals per client address or key prefix
  // within the window before it is blocked, and for how long.
  HALLMARK_AUTH_FAILURES_PER_ADDRESS: z.coerce.number().int().min(1).default(50),
  HALLMARK_AUTH_FAILURES_PER_KEY_PREFIX: z.coerce.number().int().min(1).default(20),
  HALLMARK_AUTH_FAILURE_WINDOW_SEC: z.coerce.number().int().min(1).default(60),
  HALLMARK_AUTH_FAILURE_BLOCK_SEC: z.coerce.number().int().min(1).default(300),
  // Longest session a token may grant (exp − iat, and exp − now).
  HALLMARK_SESSION_MAX_TTL_SEC: z.coerce.number().int().min(60).default(86_400),
  // Gifts (routes/gifts/): where the claim page links, and the gift limiters (spec › Limits:
  // giftTokenAttemptRateLimit, giftClaimRateLimit; defaults in routes/gifts/limits.ts).
  HALLMARK_CLAIM_APP_URL: z.string().url().optional(),
  HALLMARK_GIFT_TOKEN_ATTEMPT_LIMIT: z.coerce.number().int().min(1).default(10),
  HALLMARK_GIFT_TOKEN_ATTEMPT_WINDOW_SEC: z.coerce.number().int().min(1).default(900),
  HALLMARK_GIFT_CLAIM_LIMIT: z.coerce.number().int().min(1).default(10),
  HALLMARK_GIFT_CLAIM_WINDOW_SEC: z.coerce.number().int().min(1).default(3600),
  HALLMARK_GIFT_RESEND_LIMIT: z.coerce.number().int().min(1).default(5),
  HALLMARK_GIFT_RESEND_WINDOW_SEC: z.coerce.number().int().min(1).default(3600),
  // Per enterprise (each gift and resend e-mails or texts someone): gifts created, resends.
  HALLMARK_GIFT_CREATE_ENTERPRISE_LIMIT: z.coerce.number().int().min(1).default(100),
  HALLMARK_GIFT_CREATE_ENTERPRISE_WINDOW_SEC: z.coerce.number().int().min(1).default(3600),
  HALLMARK_GIFT_RESEND_ENTERPRISE_LIMIT: z.coerce.number().int().min(1).default(20),
  HALLMARK_GIFT_RESEND_ENTERPRISE_WINDOW_SEC: z.coerce.number().int().min(1).default(3600),
  // The public cache (cache/): what a QR scan reads, dropped by certificate events; the TTL
  // bounds staleness when an event is lost (NATS down). TTL 0 turns the cache off.
  HALLMARK_PUBLIC_CACHE_TTL_MS: z.coerce.number().int().min(0).default(10_000),
  HALLMARK_PUBLIC_CACHE_NOT_FOUND_TTL_MS: z.coerce.number().int().min(0).default(2_000),
  HALLMARK_PUBLIC_CACHE_MAX_ENTRIES: z.coerce.number().int().min(0).default(10_000),
  HALLMARK_PUBLIC_CACHE_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1)
    .default(32 * 1024 * 1024),
  // Cache-Control of the cached answers, for a CDN in front.
  HALLMARK_PUBLIC_CACHE_MAX_AGE_SEC: z.coerce.number().int().min(0).default(5),
  HALLMARK_PUBLIC_CACHE_SWR_SEC: z.coerce.number().int().min(0).default(30),
  // Explorer links of the verify page's technical details (pages/explorers.ts): the chain's
  // explorer base URL, by default the known explorer of HALLMARK_CHAIN_ID and none for a
  // local or unknown chain (the dev stack's anvil, 31337, has no explorer); empty: none. The
  // `{hash}` / `{address}` templates override the base's `/tx/…` and `/address/…` paths.
  HALLMARK_CHAIN_ID: z.coerce.number().int().positive().optional(),
  HALLMARK_CHAIN_EXPLORER_URL: z
    .string()
    .refine((v) => v === '' || /^https:\/\/[^\s]+$/.test(v), 'an https URL (or empty)')
    .optional(),
  HALLMARK_CHAIN_EXPLORER_TX_URL: z
    .string()
    .refine((v) => v === '' || v.includes('{hash}'), 'must contain {hash} (or be empty)')
    .optional(),
  HALLMARK_CHAIN_EXPLORER_ADDRESS_URL: z
    .string()
    .refine((v) => v === '' || v.includes('{address}'), 'must contain {address} (or be empty)')
    .optional(),
  // /readyz names each service's health only when set (an operator's setting, not the public's).
  HALLMARK_READYZ_DETAIL: z
    .enum(['true', 'false', '1', '0'])
    .default('false')
    .transform((v) => v === 'true' || v === '1'),
});

export type Config = z.infer<typeof configSchema>;

export function loadGatewayConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const config = loadConfig(configSchema, env);
  return config;
}
