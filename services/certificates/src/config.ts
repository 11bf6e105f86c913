// Typed env config of the certificates service, validated once at start (all problems together).
import { commonEnv, grpcAddr, loadConfig, SERVICE_DEFAULT_PORT } from '@hallmark/kit';
import { z } from 'zod';

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
    /** The HallmarkCertificates contract; unset on a local dev chain: deployed at start. */
    HALLMARK_CONTRACT_ADDRESS: z
      .string()
      .regex(/^0x[0-9a-fA-F]{40}$/, 'expected a 0x-prefixed 20-byte address')
      .optional(),
    /** Blocks (including the mining block) before chain references are recorded. */
    HALLMARK_CHAIN_CONFIRMATIONS: z.coerce.number().int().min(1).max(1000).default(1),
    /** How often the mint worker looks for open submissions (it also wakes on each MintBatch). */
    HALLMARK_CERTIFICATES_MINT_INTERVAL_MS: z.coerce.number().int().min(50).default(2000),
    /** How long one worker pass waits for a receipt before retrying in a later pass. */
    HALLMARK_CHAIN_RECEIPT_TIMEOUT_MS: z.coerce.number().int().min(1000).default(120_000),
  })
  .superRefine((c, ctx) => {
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
