// Typed env config of the bulk service, validated once at start (all problems together).
import { commonEnv, grpcAddr, loadConfig, restateEnv, SERVICE_DEFAULT_PORT } from '@hallmark/kit';
import { z } from 'zod';

const bool = z
  .enum(['true', 'false', '1', '0'])
  .default('true')
  .transform((v) => v === 'true' || v === '1');

export const configSchema = z.object({
  ...commonEnv,
  HALLMARK_BULK_ADDR: grpcAddr(SERVICE_DEFAULT_PORT.bulk),
  HALLMARK_CERTIFICATES_ADDR: grpcAddr(SERVICE_DEFAULT_PORT.certificates),
  /** Contacts (recipient e-mail and name) are stored encrypted with these keys. */
  HALLMARK_ENCRYPTION_KEYS: z.string().min(1),
  /** Restate ingress (jobs are submitted here), admin API, this process's release. */
  ...restateEnv,
  /** Port of this service's Restate endpoint (HTTP/2), and the URL Restate reaches it at. */
  HALLMARK_BULK_RESTATE_PORT: z.coerce.number().int().min(0).max(65535).default(9180),
  HALLMARK_BULK_RESTATE_HOST: z.string().default('127.0.0.1'),
  HALLMARK_BULK_RESTATE_URL: z.string().url().optional(),
  /** Register the endpoint with Restate at start (off when a deploy job registers it). */
  HALLMARK_BULK_RESTATE_REGISTER: bool,
  /** Orders with at most this many items are minted within the request (spec › Limits 4). */
  SYNC_MINT_MAX_ITEMS: z.coerce.number().int().min(0).max(100).default(5),
  /** Items per MintBatch (the certificates service takes at most 1,000). */
  HALLMARK_BULK_BATCH_SIZE: z.coerce.number().int().min(1).max(1000).default(1000),
  /** Batches submitted ahead of the one being completed (minting overlaps recording). */
  HALLMARK_BULK_PIPELINE_DEPTH: z.coerce.number().int().min(1).max(64).default(3),
  /** How often queued jobs whose workflow Restate has not acknowledged are re-submitted. */
  HALLMARK_BULK_SUBMIT_INTERVAL_MS: z.coerce.number().int().min(100).default(2000),
  /**
   * Archive image URLs with the certificates service (fetched once through its outbound guard,
   * HALLMARK_MEDIA_FETCH_TIMEOUT_MS / HALLMARK_MEDIA_MAX_BYTES there) before minting; false:
   * hot-link the merchant's URL as given.
   */
  HALLMARK_BULK_FETCH_IMAGES: bool,
  /** Pricing of the cost preview (minor units per certificate). */
  HALLMARK_PRICE_PER_CERTIFICATE: z.coerce.number().int().min(0).default(50),
  /** ISO 4217 in capitals, the one form every amount of the API uses (`USD`). */
  HALLMARK_PRICE_CURRENCY: z
    .string()
    .regex(/^[A-Za-z]{3}$/)
    .transform((c) => c.toUpperCase())
    .default('USD'),
  /**
   * Gas estimate: per certificate in a batch, plus per batch transaction, fitted to
   * `pnpm bench contract-gas` for the certificates contract's default ERC-2309 events (one
   * ConsecutiveTransfer per batch: 90,645 for a batch of 1, ≈ 958/cert at 100, ≈ 241 at 1,000;
   * the line through the batches of 1 and 1,000; it quotes ≈ 10% above the mean at 100). A
   * per-token-events deployment (HALLMARK_CHAIN_TRANSFER_EVENTS=per-token) measures 2,084 and 88,300.
   */
  HALLMARK_GAS_PER_CERTIFICATE: z.coerce.number().int().min(0).default(151),
  HALLMARK_GAS_PER_BATCH: z.coerce.number().int().min(0).default(90_500),
});

export type Config = z.infer<typeof configSchema>;

export const loadBulkConfig = (env: NodeJS.ProcessEnv = process.env): Config => loadConfig(configSchema, env);
