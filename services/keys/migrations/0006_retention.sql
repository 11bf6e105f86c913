-- Retention (kit retention.ts) deletes usage receipts, roll-ups and audit entries by age.
-- BRIN indexes: rows arrive in (about) time order, so a range index of a few pages finds the
-- old ones at almost no cost per insert.
CREATE INDEX IF NOT EXISTS usage_batches_received_brin ON usage_batches USING brin (received_at);
CREATE INDEX IF NOT EXISTS key_usage_hourly_hour_brin ON key_usage_hourly USING brin (hour);
CREATE INDEX IF NOT EXISTS audit_logs_created_brin ON audit_logs USING brin (created_at);
