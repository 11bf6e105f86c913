// Why vouchers' database must replicate synchronously (issue 35; docs/clustered-engines.md): with
// Patroni's synchronous_mode off, a failover loses a redemption the client was told succeeded,
// and the chaos checker's durability invariant ("every acknowledged redemption is recorded")
// names it. Made deterministic rather than hoped for: the primary's WAL sender is paused
// (SIGSTOP), so the standby receives nothing more while the primary, asynchronous, still
// acknowledges commits; a redemption is answered 200; the primary's machine is lost (SIGKILL)
// and Patroni promotes the standby (its lag is within maximum_lag_on_failover). The redemption
// answered before the pause survives; the one answered during it does not.
// With synchronous_mode on (the default, and the clustered chaos soak) the same commit waits for
// the standby instead of being acknowledged: nothing acknowledged can be lost.
//
// Like the clustered soak it needs Debian's etcd-server, patroni and haproxy (installed on demand
// as root; HALLMARK_CLUSTERED_TESTS=0 skips it) and takes ~1.5 minutes (Patroni's 20 s leader ttl).
//   pnpm test test/e2e/test/chaos-lost-write.test.ts
import { afterAll, describe, expect, it } from '@jest/globals';
import { startPatroniCluster, waitFor, type PatroniClusterHandle } from '@hallmark/devstack';
import { newId } from '@hallmark/kit';
import { startTestStack, type TestStack } from '@hallmark/e2e';
import { serviceQuery } from '@hallmark/e2e/bulk';
import { acknowledgedRedemptionsKept, clusteredTestsEnabled, emptyHistory } from '@hallmark/e2e/chaos';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';

const run = clusteredTestsEnabled() ? it : it.skip;

let cluster: PatroniClusterHandle | undefined;
let stack: TestStack | undefined;
let dataDir: string | undefined;

afterAll(async () => {
  await stack?.close();
  await cluster?.stop();
  // The cluster's data (~300 MB); E2E_KEEP_LOGS=1 keeps it to look into, as the stacks' logs.
  if (dataDir && process.env.E2E_KEEP_LOGS !== '1') rmSync(dataDir, { recursive: true, force: true });
  else if (dataDir) console.log(`e2e: cluster data kept in ${dataDir}`);
}, 120_000);

/** One query on one node directly (not through HAProxy). */
async function onNode<T extends pg.QueryResultRow>(url: string, sql: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
  await client.connect();
  try {
    return (await client.query<T>(sql)).rows;
  } finally {
    await client.end();
  }
}

describe('a failover with asynchronous replication', () => {
  run(
    'loses a redemption answered 200 while the standby lagged, and the durability invariant names it',
    async () => {
      cluster = await startPatroniCluster({
        dataDir: (dataDir = mkdtempSync(path.join(tmpdir(), 'hallmark-lost-write-'))),
        synchronous: false,
      });
      stack = await startTestStack({ databaseUrl: cluster.url });
      const s = stack;
      const session = await s.token({ ent: newId('enterprise'), role: 'owner' });
      const key = await s.call('POST', '/api/v1/api-keys', {
        auth: session,
        body: { name: 'lost write', type: 'production', permissions: ['transactions.*'] },
      });
      expect(key.status).toBe(201);
      const auth = key.body.key as string;
      const v = await s.call('POST', '/api/v1/vouchers', {
        auth,
        body: { code: `LOST${Date.now()}`, type: 'percentage', value: 10, max_uses: 10 },
      });
      expect(v.status).toBe(201);
      const h = emptyHistory(0);
      h.vouchers.push({ id: v.body.id, maxUses: 10 });
      const redeem = async (orderId: string) => {
        const r = await s.call('POST', '/api/v1/vouchers/redeem', {
          auth,
          body: { code: v.body.code, order_id: orderId, amount: 1000 },
        });
        expect(r.status).toBe(200);
        h.redemptions.push({
          voucherId: v.body.id,
          orderId,
          transactionId: r.body.transaction_id,
          at: Date.now(),
        });
      };

      await redeem('order-replicated');
      const primary = (await cluster.primary())!;
      // The standby has replayed everything so far (the first redemption with it).
      await waitFor(
        async () =>
          (
            await onNode<{ caught_up: boolean }>(
              primary.url,
              `SELECT bool_and(replay_lsn >= pg_current_wal_lsn()) AS caught_up FROM pg_stat_replication WHERE state = 'streaming'`,
            )
          )[0]?.caught_up === true,
        { what: 'the standby to replay the first redemption', timeoutMs: 30_000, intervalMs: 200 },
      );
      const senders = await onNode<{ pid: number }>(primary.url, 'SELECT pid FROM pg_stat_replication');
      expect(senders.length).toBeGreaterThan(0);
      for (const { pid } of senders) process.kill(pid, 'SIGSTOP');

      // Asynchronous: the primary acknowledges without the standby.
      await redeem('order-unreplicated');
      await primary.kill(); // SIGKILL takes the paused WAL sender with the machine
      await waitFor(async () => (await cluster!.primary()) ?? false, {
        what: 'Patroni to promote the standby',
        timeoutMs: 120_000,
        intervalMs: 250,
      });
      // Through HAProxy to the new primary (the services reconnect the same way).
      const rows = await waitFor(
        async () => {
          try {
            return await serviceQuery<{ voucher_id: string; order_id: string; transaction_id: string }>(
              s,
              'vouchers',
              'SELECT voucher_id, order_id, transaction_id FROM redemptions WHERE voucher_id = $1',
              [v.body.id],
            );
          } catch {
            return false;
          }
        },
        { what: 'the new primary to answer', timeoutMs: 60_000, intervalMs: 500 },
      );
      const result = acknowledgedRedemptionsKept(h, {
        redemptionRows: rows.map((r) => ({
          voucherId: r.voucher_id,
          orderId: r.order_id,
          transactionId: r.transaction_id,
        })),
      });
      const [replicated, unreplicated] = h.redemptions;
      expect(result.violations).toEqual([
        `${v.body.id}/order-unreplicated (${unreplicated!.transactionId} answered, not recorded)`,
      ]);
      expect(rows.map((r) => r.transaction_id)).toEqual([replicated!.transactionId]);
    },
    300_000,
  );
});
