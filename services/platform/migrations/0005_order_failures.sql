-- A paid order that could not become its bulk job (no image anywhere, or bulk refused the
-- form): why, in the spec's error terms ({code, message, param, at}). Set once: the same
-- transaction sets the integration's last_error and writes platform.order.failed, so a
-- repeated workflow step reports it once.
ALTER TABLE orders ADD COLUMN failure jsonb;

-- The integration's last order failure ({code, message, param, orderId, orderName, at}),
-- shown as `lastError`; cleared when a later order of the shop becomes its job.
ALTER TABLE integrations ADD COLUMN last_error jsonb;
