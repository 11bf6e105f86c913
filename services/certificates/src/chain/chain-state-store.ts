// SQL of `chain_state`: the dev contract's address per chain (and event mode), written by one
// deployer at a time.
import type { Pool } from '@hallmark/kit';

/**
 * Runs `body` under a session advisory lock on `key` (replicas starting together deploy once),
 * with the address stored under `key` and a way to store a new one.
 */
export async function withDevContractLock<T>(
  pool: Pool,
  key: string,
  body: (known: string | undefined, remember: (address: string) => Promise<void>) => Promise<T>,
): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('SELECT pg_advisory_lock(hashtextextended($1, 0))', [key]);
    const { rows } = await client.query<{ value: string }>('SELECT value FROM chain_state WHERE key = $1', [
      key,
    ]);
    return await body(rows[0]?.value, async (address) => {
      await client.query(
        `INSERT INTO chain_state (key, value) VALUES ($1, $2)
         ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value, updated_at = now()`,
        [key, address],
      );
    });
  } finally {
    await client.query('SELECT pg_advisory_unlock(hashtextextended($1, 0))', [key]).catch(() => undefined);
    client.release();
  }
}
