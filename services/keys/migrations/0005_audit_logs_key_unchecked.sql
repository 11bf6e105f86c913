-- `key.used` audit entries arrive one per keyed request (RecordUsage batches): the foreign key
-- audit_logs.key_id → api_keys checked every inserted row with a lookup and a row lock of its
-- key (most of a usage record's PostgreSQL time after the row itself, measured). It guarded
-- nothing: api_keys rows are never deleted (a revoked key stays, status revoked), and every
-- writer of audit_logs names a key it has read in the same transaction — RecordUsage locks
-- its batch's keys FOR NO KEY UPDATE and drops records of unknown keys; key changes lock the
-- key they audit. The key_usage_hourly foreign key stays (a roll-up row is inserted once an
-- hour per endpoint, not per request).
ALTER TABLE audit_logs DROP CONSTRAINT audit_logs_key_id_fkey;
