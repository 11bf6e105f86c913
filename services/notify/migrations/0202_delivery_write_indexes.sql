-- Fewer index entries written per delivery. A delivery row is written three times (fan-out's
-- INSERT, the claim, the outcome) and none of those updates can be HOT (each changes
-- next_attempt_at or status, which indexes hold), so every write adds an entry to every index
-- whose predicate the row meets. Four of those entries were never read for an endpoint's
-- delivery:
--  * the per-subscription and per-session unique and recent indexes took a NULL entry for
--    every row of another kind (b-trees index NULLs): now partial, NULLs left out (fan-out's
--    ON CONFLICT names the predicate, so it still infers them);
--  * webhook_deliveries_due (every pending row, by time): the claim walks
--    webhook_deliveries_claimable, the in-flight count webhook_deliveries_in_flight; its last
--    readers were the backlog gauge and the listen sweep, now served by claimable plus a
--    partial index of listen sessions' pending rows (which an endpoint's rows never enter).
DROP INDEX webhook_deliveries_due;
CREATE INDEX webhook_deliveries_session_pending ON webhook_deliveries (session_id)
  WHERE status = 'pending' AND session_id IS NOT NULL;

DROP INDEX webhook_deliveries_subscription_event;
CREATE UNIQUE INDEX webhook_deliveries_subscription_event ON webhook_deliveries (subscription_id, event_id)
  WHERE subscription_id IS NOT NULL;
DROP INDEX webhook_deliveries_session_event;
CREATE UNIQUE INDEX webhook_deliveries_session_event ON webhook_deliveries (session_id, event_id)
  WHERE session_id IS NOT NULL;
DROP INDEX webhook_deliveries_endpoint_event;
CREATE UNIQUE INDEX webhook_deliveries_endpoint_event ON webhook_deliveries (endpoint_id, event_id)
  WHERE endpoint_id IS NOT NULL;
DROP INDEX webhook_deliveries_subscription_recent;
CREATE INDEX webhook_deliveries_subscription_recent ON webhook_deliveries (subscription_id, created_at DESC)
  WHERE subscription_id IS NOT NULL;
DROP INDEX webhook_deliveries_endpoint_recent;
CREATE INDEX webhook_deliveries_endpoint_recent ON webhook_deliveries (endpoint_id, created_at DESC)
  WHERE endpoint_id IS NOT NULL;

-- An attempt's row is inserted at the claim and updated once with its answer (columns no index
-- holds): room left in each page lets that update be HOT (no new primary-key entry).
ALTER TABLE webhook_attempts SET (fillfactor = 80);
