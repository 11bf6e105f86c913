-- Attempts in flight (claimed, lease running or run out unrecorded): the delivery worker counts
-- them per endpoint or subscription at every claim, to hold each target to its concurrency
-- cap. A small set (at most the workers' concurrency, plus leases of crashed workers until
-- reclaimed), so the count reads this index and never the backlog.
CREATE INDEX webhook_deliveries_in_flight ON webhook_deliveries (next_attempt_at)
  WHERE status = 'pending' AND claim_token IS NOT NULL;
