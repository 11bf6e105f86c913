// Typed env config of the certificates service, validated once at start (all problems together).
import { commonEnv, grpcAddr, loadConfig, restateEnv, SERVICE_DEFAULT_PORT } from '@hallmark/kit';
import { z } from 'zod';
import type { FeePolicy } from './chain/replacement.js';

export const configSchema = z
  .object({
    ...commonEnv,
    HALLMARK_CERTIFICATES_ADDR: grpcAddr(SERVICE_DEFAULT_PORT.certificates),
    /** EVM JSON-RPC endpoint. Unset: the service runs without a chain (MintBatch unavailable). */
    HALLMARK_CHAIN_RPC_URL: z.string().url().optional(),
    /** Expected chain id (checked against the node); also fixes the network without a probe. */
    HALLMARK_CHAIN_ID: z.coerce.number().int().positive().optional(),
    /** The relayer's private key (MINTER_ROLE holder, pays gas). Required with a chain. */
    HALLMARK_RELAYER_KEY: z
      .string()
      .regex(/^0x[0-9a-fA-F]{64}$/, 'expected a 0x-prefixed 32-byte hex private key')
      .optional(),
    /**
     * Mint signers (each its own key, nonce line and advisory lock): signer 1 is
     * HALLMARK_RELAYER_KEY, signers 2..N HALLMARK_RELAYER_MINT_KEYS (on the local dev chain,
     * anvil accounts 10, 11, … when keys are missing). Each needs MINTER_ROLE and gas.
     */
    HALLMARK_RELAYER_SIGNERS: z.coerce.number().int().min(1).max(16).default(1),
    /** Keys of mint signers 2..N, comma-separated 0x-prefixed 32-byte hex private keys. */
    HALLMARK_RELAYER_MINT_KEYS: z
      .string()
      .default('')
      .transform((v) =>
        v
          .split(',')
          .map((k) => k.trim())
          .filter(Boolean),
      )
      .pipe(
        z.array(z.string().regex(/^0x[0-9a-fA-F]{64}$/, 'expected 0x-prefixed 32-byte hex private keys')),
      ),
    /** Mint transactions each signer has in flight at once (signed, broadcast, not yet confirmed). */
    HALLMARK_RELAYER_MAX_IN_FLIGHT: z.coerce.number().int().min(1).max(256).default(8),
    /**
     * Under this balance (wei) /api/certificate/health is degraded (503; the gateway logs
     * `relayer: low`). 0: no floor.
     */
    HALLMARK_RELAYER_BALANCE_FLOOR_WEI: z
      .string()
      .regex(/^\d{1,78}$/, 'expected a whole number of wei')
      .default('0')
      .transform((v) => BigInt(v)),
    /** The HallmarkCertificates contract; unset on a local dev chain: deployed at start. */
    HALLMARK_CONTRACT_ADDRESS: z
      .string()
      .regex(/^0x[0-9a-fA-F]{40}$/, 'expected a 0x-prefixed 20-byte address')
      .optional(),
    /**
     * Keys of the custodial wallets' encryption at rest (kit Encryptor: 32-byte keys, hex or
     * base64, comma-separated, newest first). Unset: EnsureWallet, holder_account and Transfer
     * answer service_unavailable.
     */
    HALLMARK_ENCRYPTION_KEYS: z.string().min(1).optional(),
    /** Blocks (including the mining block) before chain references are recorded. */
    HALLMARK_CHAIN_CONFIRMATIONS: z.coerce.number().int().min(1).max(1000).default(1),
    /** How often the mint worker looks for open submissions (it also wakes on each MintBatch). */
    HALLMARK_CERTIFICATES_MINT_INTERVAL_MS: z.coerce.number().int().min(50).default(2000),
    /** How long one worker pass waits for a receipt before retrying in a later pass. */
    HALLMARK_CHAIN_RECEIPT_TIMEOUT_MS: z.coerce.number().int().min(1000).default(120_000),
    /**
     * How long a broadcast mint or transfer transaction may stay unmined before it is signed
     * again with the same nonce and +20% fees (fee bump).
     */
    HALLMARK_CHAIN_REPLACE_AFTER_MS: z.coerce.number().int().min(1000).default(60_000),
    /** Highest maxFeePerGas (gwei) the relayer ever signs, first signing and fee bumps alike. */
    HALLMARK_CHAIN_MAX_FEE_GWEI: z.coerce.number().positive().max(1_000_000).default(500),
    /**
     * Events of the batches of enterprises whose chain settings choose none: `erc2309` (one
     * ConsecutiveTransfer per batch) or `per-token` (one Transfer per token, what every indexer
     * reads). A per-token-only contract emits per token whatever this says.
     */
    HALLMARK_CHAIN_TRANSFER_EVENTS: z.enum(['erc2309', 'per-token']).default('erc2309'),
    /** Transfer attempts of one certificate-voucher claim before the claim is undone. */
    HALLMARK_CLAIM_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(100).default(5),
    /**
     * How often the chain indexer (src/indexer/; named burn indexer before it kept the chain
     * index the verifications read) looks for confirmed logs of the contract.
     */
    HALLMARK_BURN_INDEXER_INTERVAL_MS: z.coerce.number().int().min(50).default(2000),
    /** Largest block range of one getLogs call of the chain indexer. */
    HALLMARK_BURN_INDEXER_BLOCK_RANGE: z.coerce.number().int().min(1).max(100_000).default(1000),
    /** First block the chain indexer scans when it has no checkpoint (the contract's deployment block). */
    HALLMARK_BURN_INDEXER_START_BLOCK: z.coerce.number().int().min(0).default(0),
    /**
     * How often the re-check compares the chain index with the chain itself (src/verify/workers/
     * recheck.ts), and how many certificates a pass compares; 0: off.
     */
    HALLMARK_CHAIN_RECHECK_INTERVAL_MS: z.coerce.number().int().min(0).default(30_000),
    HALLMARK_CHAIN_RECHECK_BATCH: z.coerce.number().int().min(1).max(10_000).default(100),
    /** The window of document.verified: one event per certificate viewed in it, with the count. */
    HALLMARK_VERIFICATION_EVENT_WINDOW_MS: z.coerce.number().int().min(50).max(3_600_000).default(10_000),
    /** Addresses per addToAllowlist transaction (and per retry-job pass). */
    HALLMARK_ALLOWLIST_BATCH_SIZE: z.coerce.number().int().min(1).max(500).default(100),
    /** Times the retry job re-queues a failed address before leaving it failed. */
    HALLMARK_ALLOWLIST_MAX_RETRIES: z.coerce.number().int().min(0).max(100).default(5),
    /** Time after a failed attempt before the retry job re-queues the address. */
    HALLMARK_ALLOWLIST_RETRY_DELAY_MS: z.coerce.number().int().min(0).default(30_000),
    // Gifts (src/gifts/): lifetime, the workflow's Restate endpoint, notify for messages.
    /** Hours a gift can be claimed (fractions allowed, for tests). */
    HALLMARK_GIFT_TTL_HOURS: z.coerce
      .number()
      .positive()
      .max(24 * 365)
      .default(168),
    /** Failed chain transfers of one gift claim before the gift is pending again. */
    HALLMARK_GIFT_MAX_TRANSFER_ATTEMPTS: z.coerce.number().int().min(1).max(100).default(5),
    /** How often gifts whose workflow Restate has not accepted yet are started again. */
    HALLMARK_GIFT_STARTER_INTERVAL_MS: z.coerce.number().int().min(50).default(5000),
    HALLMARK_NOTIFY_ADDR: grpcAddr(SERVICE_DEFAULT_PORT.notify),
    ...restateEnv,
    HALLMARK_CERTIFICATES_RESTATE_PORT: z.coerce.number().int().min(0).max(65535).default(9182),
    HALLMARK_CERTIFICATES_RESTATE_HOST: z.string().default('127.0.0.1'),
    HALLMARK_CERTIFICATES_RESTATE_URL: z.string().url().optional(),
    /** Register the gift workflow's endpoint with Restate at start (else a deploy job does). */
    HALLMARK_CERTIFICATES_RESTATE_REGISTER: z
      .enum(['true', 'false', '1', '0'])
      .default('true')
      .transform((v) => v === 'true' || v === '1'),
    // Media (src/media/): archived certificate images and where their bytes live.
    /** `fs`: a directory (HALLMARK_MEDIA_DIR); `s3`: a bucket of any S3-compatible store. */
    HALLMARK_MEDIA_BACKEND: z.enum(['fs', 's3']).default('fs'),
    HALLMARK_DATA_DIR: z.string().default('.hallmark'),
    /** The fs backend's directory (default `<HALLMARK_DATA_DIR>/media`). */
    HALLMARK_MEDIA_DIR: z.string().optional(),
    HALLMARK_MEDIA_S3_BUCKET: z.string().optional(),
    /** An S3-compatible endpoint (MinIO, R2, …); unset: AWS for the region. Path-style when set. */
    HALLMARK_MEDIA_S3_ENDPOINT: z.string().url().optional(),
    HALLMARK_MEDIA_S3_REGION: z.string().default('us-east-1'),
    /** Unset: the SDK's default chain (environment, web identity, instance role). */
    HALLMARK_MEDIA_S3_ACCESS_KEY_ID: z.string().optional(),
    HALLMARK_MEDIA_S3_SECRET_ACCESS_KEY: z.string().optional(),
    HALLMARK_MEDIA_S3_PREFIX: z.string().default(''),
    /** Time budget of one image fetch (all redirects), and its size cap. */
    HALLMARK_MEDIA_FETCH_TIMEOUT_MS: z.coerce.number().int().min(100).default(10_000),
    HALLMARK_MEDIA_MAX_BYTES: z.coerce
      .number()
      .int()
      .min(1024)
      .default(10 * 1024 * 1024),
    HALLMARK_OUTBOUND_ALLOW_HOSTS: z.string().default(''),
    // Verifiable credentials (src/credentials/): the worker issuing queued certificates' credentials.
    /** How often the credentials worker looks for queued certificates (it is also woken after each mint pass); 0: off. */
    HALLMARK_CREDENTIALS_INTERVAL_MS: z.coerce.number().int().min(0).default(2000),
    /** Certificates signed per transaction of the credentials worker. */
    HALLMARK_CREDENTIALS_BATCH_SIZE: z.coerce.number().int().min(1).max(500).default(25),
    /**
     * While mints are in flight, credentials wait (minting keeps the CPU) unless one has been
     * queued this long (ms): then one transaction of them an interval.
     */
    HALLMARK_CREDENTIALS_MAX_DEFER_MS: z.coerce.number().int().min(0).default(60_000),
    /** How often the backfill worker archives images of certificates issued before archiving (0: off). */
    HALLMARK_MEDIA_BACKFILL_INTERVAL_MS: z.coerce.number().int().min(0).default(60_000),
  })
  .superRefine((c, ctx) => {
    if (c.HALLMARK_MEDIA_BACKEND === 's3' && !c.HALLMARK_MEDIA_S3_BUCKET) {
      ctx.addIssue({
        code: 'custom',
        path: ['HALLMARK_MEDIA_S3_BUCKET'],
        message: 'required when HALLMARK_MEDIA_BACKEND is s3',
      });
    }
    if (c.HALLMARK_CHAIN_RPC_URL && !c.HALLMARK_RELAYER_KEY) {
      ctx.addIssue({
        code: 'custom',
        path: ['HALLMARK_RELAYER_KEY'],
        message: 'required when HALLMARK_CHAIN_RPC_URL is set',
      });
    }
  });

export type Config = z.infer<typeof configSchema>;

export const loadCertificatesConfig = (env: NodeJS.ProcessEnv = process.env): Config =>
  loadConfig(configSchema, env);

/** The relayer's fee-bump policy (mints and transfers) from the config. */
export const feePolicyOf = (c: Config): FeePolicy => ({
  replaceAfterMs: c.HALLMARK_CHAIN_REPLACE_AFTER_MS,
  maxFeePerGas: BigInt(Math.round(c.HALLMARK_CHAIN_MAX_FEE_GWEI * 1e9)),
});
