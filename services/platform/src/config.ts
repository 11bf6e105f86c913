// Typed env config of the platform service, validated once at start (all problems together).
// Names: architecture.md › Gifts and the e-commerce platform.
import { commonEnv, grpcAddr, loadConfig, restateEnv, SERVICE_DEFAULT_PORT } from '@hallmark/kit';
import { z } from 'zod';

const bool = z
  .enum(['true', 'false', '1', '0'])
  .default('true')
  .transform((v) => v === 'true' || v === '1');
const seconds = (d: number) => z.coerce.number().int().min(1).default(d);

export const configSchema = z.object({
  ...commonEnv,
  HALLMARK_PLATFORM_ADDR: grpcAddr(SERVICE_DEFAULT_PORT.platform),
  HALLMARK_KEYS_ADDR: grpcAddr(SERVICE_DEFAULT_PORT.keys),
  HALLMARK_BULK_ADDR: grpcAddr(SERVICE_DEFAULT_PORT.bulk),
  HALLMARK_CERTIFICATES_ADDR: grpcAddr(SERVICE_DEFAULT_PORT.certificates),
  /** Access tokens, supplied API keys and webhook secrets are stored encrypted. */
  HALLMARK_ENCRYPTION_KEYS: z.string().min(1),
  /**
   * The app's key and secret at the platform (the secret verifies webhooks and callbacks).
   * Unset: the integration is off and its RPCs answer service_unavailable (never a guessable
   * default secret).
   */
  HALLMARK_PLATFORM_API_KEY: z.string().default(''),
  HALLMARK_PLATFORM_API_SECRET: z.string().default(''),
  /** A shop's Admin base; `{shop}` is the shop domain. */
  HALLMARK_PLATFORM_ADMIN_URL: z
    .string()
    .refine((s) => s.includes('{shop}') && /^https?:\/\//.test(s), 'an http(s) URL with {shop}')
    .default('https://{shop}/admin'),
  /** Where an install returns (with the setup token). */
  HALLMARK_PLATFORM_APP_URL: z.string().url().default('http://127.0.0.1:8080/'),
  HALLMARK_PLATFORM_API_VERSION: z
    .string()
    .regex(/^\d{4}-\d{2}$/)
    .default('2024-10'),
  /** Shop domains accepted (the platform's own store domains): a suffix such as `.myshopify.com`. */
  HALLMARK_PLATFORM_SHOP_DOMAIN_SUFFIX: z.string().min(2).default('.myshopify.com'),
  /** Fulfilment tracking: `{hash}` is the chain transaction hash. */
  HALLMARK_CHAIN_EXPLORER_TX_URL: z.string().includes('{hash}').default('https://etherscan.io/tx/{hash}'),
  HALLMARK_FULFILMENT_COMPANY: z.string().min(1).default('Hallmark'),
  /** Install state and setup token lifetimes; callback timestamp tolerance. */
  HALLMARK_PLATFORM_STATE_TTL_S: seconds(600),
  HALLMARK_PLATFORM_SETUP_TOKEN_TTL_S: seconds(600),
  HALLMARK_PLATFORM_CALLBACK_MAX_AGE_S: seconds(300),
  /** Deadline of one call to the platform's Admin API. */
  HALLMARK_PLATFORM_HTTP_TIMEOUT_MS: z.coerce.number().int().min(100).default(10_000),
  /**
   * Attempts at an order's product lookup (each GraphQL, then REST) before its job is built
   * from the order's own line items.
   */
  HALLMARK_PLATFORM_PRODUCT_LOOKUP_ATTEMPTS: z.coerce.number().int().min(1).max(20).default(3),
  /**
   * When a unit has no image but its product's and the lookup failed: the first wait before it
   * is tried again (doubling, capped at 12×), and how many times, before the order is reported.
   */
  HALLMARK_PLATFORM_PRODUCT_WAIT_MS: z.coerce.number().int().min(1).default(5000),
  HALLMARK_PLATFORM_PRODUCT_WAITS: z.coerce.number().int().min(0).max(50).default(10),
  /** First fulfilment retry delay (doubles, capped at 10 s; spec › Limits 7). */
  HALLMARK_FULFILMENT_BACKOFF_MS: z.coerce.number().int().min(1).default(1000),
  ...restateEnv,
  HALLMARK_PLATFORM_RESTATE_PORT: z.coerce.number().int().min(0).max(65535).default(9181),
  HALLMARK_PLATFORM_RESTATE_HOST: z.string().default('127.0.0.1'),
  HALLMARK_PLATFORM_RESTATE_URL: z.string().url().optional(),
  HALLMARK_PLATFORM_RESTATE_REGISTER: bool,
  /** How often paid orders whose workflow Restate has not acknowledged are re-sent. */
  HALLMARK_PLATFORM_SUBMIT_INTERVAL_MS: z.coerce.number().int().min(100).default(2000),
});

export type Config = z.infer<typeof configSchema>;

export const loadPlatformConfig = (env: NodeJS.ProcessEnv = process.env): Config =>
  loadConfig(configSchema, env);
