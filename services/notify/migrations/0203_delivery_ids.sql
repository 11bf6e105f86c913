-- Fan-out's idempotency moves to the primary key: a delivery's id is derived from its target
-- and event (src/webhooks/domain/delivery-id.ts), so a second insert of the same (event,
-- target) conflicts on the id. The unique indexes of (target, event) did the same job and cost
-- an entry at each of the row's three writes (none is a HOT update); nothing else reads them
-- (lists go through the recent indexes, claims through claimable and in_flight).
-- Rows made before this migration have random ids: a second fan-out of one of their events
-- would need a redelivery the consumer's processed_events did not catch (it records the id in
-- the fan-out's own transaction and keeps it 31 days, longer than deliveries are kept).
DROP INDEX webhook_deliveries_endpoint_event;
DROP INDEX webhook_deliveries_subscription_event;
DROP INDEX webhook_deliveries_session_event;
