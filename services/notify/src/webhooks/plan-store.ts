// The delivery path's named statements (the claim, a batch of successes) run many times a
// second and were written to be planned once per connection. PostgreSQL's default
// (plan_cache_mode auto) planned them afresh at every execution instead once a backlog was due
// (10,000 rows: 12 claims, 12 custom plans): with a LIMIT taken from a parameter and arrays of
// ids, the generic plan's estimate did not look as cheap as the custom ones, so each claim paid
// its planning again (~1 ms of the database's CPU under load, a third of its execution). Here
// such a statement runs in a transaction that forces the generic plan, built once per
// connection, and plans it with sequential scans off: a generic plan built while the table was
// small (a new database's first deliveries) chose to scan it and test every row against the
// array of ids, and kept doing so as it grew (~40% of the database's CPU in a burst profiled
// that way, comparing text; the default mode settles on such a plan too after five
// executions). These statements reach their rows through indexes (primary key, partial
// indexes) by design, so every plan must. SET LOCAL: the pooled connection's other statements
// keep the defaults.
import type { Pool } from '@hallmark/kit';
import type { QueryResultRow } from 'pg';

export interface NamedQuery {
  name: string;
  text: string;
  values: unknown[];
}

export async function withGenericPlan<R extends QueryResultRow>(pool: Pool, query: NamedQuery): Promise<R[]> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    // One round trip for the transaction and its settings.
    await client.query(
      'BEGIN; SET LOCAL plan_cache_mode = force_generic_plan; SET LOCAL enable_seqscan = off',
    );
    const { rows } = await client.query<R>(query);
    await client.query('COMMIT');
    return rows;
  } catch (err) {
    await client.query('ROLLBACK').catch((e: unknown) => (broken = e as Error));
    throw err;
  } finally {
    client.release(broken);
  }
}
