// Typed env config of the vouchers service, validated once at start (all problems together).
import { commonEnv, grpcAddr, loadConfig, SERVICE_DEFAULT_PORT } from '@hallmark/kit';
import { z } from 'zod';

export const configSchema = z.object({
  ...commonEnv,
  HALLMARK_VOUCHERS_ADDR: grpcAddr(SERVICE_DEFAULT_PORT.vouchers),
  /** Currency of a redemption that names none, when the voucher names none either. */
  HALLMARK_VOUCHERS_DEFAULT_CURRENCY: z
    .string()
    .regex(/^[A-Z]{3}$/, 'expected a three-letter upper-case currency code')
    .default('USD'),
  /** How often the sweeper persists `expired` on vouchers whose expires_at passed. */
  HALLMARK_VOUCHERS_SWEEP_INTERVAL_MS: z.coerce.number().int().min(100).default(30_000),
});

export type Config = z.infer<typeof configSchema>;

export const loadVouchersConfig = (env: NodeJS.ProcessEnv = process.env): Config =>
  loadConfig(configSchema, env);
