-- Retention (kit retention.ts) deletes finished deliveries and messages by age. BRIN indexes:
-- rows are appended in time order, so a range index of a few pages finds the old ones at
-- almost no cost per insert. Ended listen sessions are few: a partial b-tree.
CREATE INDEX IF NOT EXISTS webhook_deliveries_created_brin ON webhook_deliveries USING brin (created_at);
CREATE INDEX IF NOT EXISTS messages_created_brin ON messages USING brin (created_at);
CREATE INDEX IF NOT EXISTS listen_sessions_ended ON listen_sessions (ended_at) WHERE ended_at IS NOT NULL;
