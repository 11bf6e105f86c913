-- The delivery worker's claim walks due deliveries oldest first and stops after the few it
-- needs, skipping targets that are disabled or at their concurrency cap. This index gives that
-- order without touching listen sessions' rows (the hub serves those) nor sorting the backlog,
-- so a claim costs the rows it looks at, not the size of the backlog.
CREATE INDEX webhook_deliveries_claimable ON webhook_deliveries (next_attempt_at)
  WHERE status = 'pending' AND session_id IS NULL;
-- The targets a claim skips because they are switched off, read at every claim: a handful of
-- rows, never the whole table.
CREATE INDEX webhook_endpoints_disabled ON webhook_endpoints (id) WHERE status = 'disabled';
CREATE INDEX enterprise_subscriptions_disabled ON enterprise_subscriptions (id) WHERE NOT enabled;
