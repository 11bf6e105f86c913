-- The contract allowlist, one entry per (checksummed) address:
--   pending → success | failed; failed → pending again by the retry job (retry_count + 1)
--   while retry_count < HALLMARK_ALLOWLIST_MAX_RETRIES.
CREATE TABLE allowlist_entries (
  address          text PRIMARY KEY CHECK (address ~ '^0x[0-9a-fA-F]{40}$'),
  status           text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'success', 'failed')),
  error            text,
  last_attempt     timestamptz,
  retry_count      integer NOT NULL DEFAULT 0 CHECK (retry_count >= 0),
  transaction_hash text,
  block_number     bigint,
  requested_by     text,
  created_at       timestamptz NOT NULL DEFAULT now(),
  updated_at       timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX allowlist_entries_open ON allowlist_entries (status, created_at) WHERE status <> 'success';
