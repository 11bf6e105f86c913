// The Restate settings every service with workflows reads (spread into its config schema).
import { z } from 'zod';

export const restateEnv = {
  /** Restate's ingress (workflows are started here) and admin API (endpoints register here). */
  HALLMARK_RESTATE_INGRESS_URL: z.string().url().default('http://127.0.0.1:9080'),
  HALLMARK_RESTATE_ADMIN_URL: z.string().url().default('http://127.0.0.1:9070'),
  /**
   * The release this process runs (the image tag in production). Its Restate endpoint is
   * registered as a deployment of its own, at `<url>/<release>`: see docs/runbooks/upgrade.md.
   */
  HALLMARK_RELEASE: z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/, 'letters, digits, . _ - (a URL path segment)')
    .default('dev'),
  /**
   * Register over a deployment already at the same URI (`pnpm start`: rebuilt code on the
   * same port). Never in production: it swaps the code under running invocations.
   */
  HALLMARK_RESTATE_FORCE_REGISTER: z
    .enum(['true', 'false', '1', '0'])
    .default('false')
    .transform((v) => v === 'true' || v === '1'),
};
