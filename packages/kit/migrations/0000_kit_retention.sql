-- Retention (kit retention.ts) deletes by age. BRIN indexes: rows are appended in time order,
-- so a range index of a few pages finds the old ones, at almost no cost per insert.
CREATE INDEX IF NOT EXISTS outbox_created_brin ON outbox USING brin (created_at);
CREATE INDEX IF NOT EXISTS processed_events_processed_brin ON processed_events USING brin (processed_at);
