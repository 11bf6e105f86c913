-- Bulk mint jobs, their items, and images uploaded in ZIPs.
CREATE TABLE jobs (
  id               text PRIMARY KEY,
  enterprise_id    text NOT NULL,
  livemode         boolean NOT NULL,
  -- Who created the job: the workflow calls the certificates service as this principal.
  actor_id         text NOT NULL,
  actor_type       text NOT NULL,
  form             text NOT NULL CHECK (form IN ('csv', 'order')),
  status           text NOT NULL DEFAULT 'queued'
                   CHECK (status IN ('queued', 'processing', 'completed', 'failed', 'cancelled')),
  idempotency_key  text,
  external_context jsonb,
  create_batch     boolean NOT NULL DEFAULT false,
  csv_filename     text,
  total_count      integer NOT NULL CHECK (total_count >= 0),
  processed_count  integer NOT NULL DEFAULT 0,
  success_count    integer NOT NULL DEFAULT 0,
  failed_count     integer NOT NULL DEFAULT 0,
  -- Run number: 0 is the first run, each accepted retry adds one. The workflow invocation
  -- of a run is keyed `<jobId>:<pass>`; a stale invocation (pass < this) does nothing.
  pass             integer NOT NULL DEFAULT 0,
  -- The last pass Restate acknowledged; the submitter re-sends while it is behind `pass`.
  submitted_pass   integer NOT NULL DEFAULT -1,
  error            text,
  created_at       timestamptz NOT NULL DEFAULT now(),
  updated_at       timestamptz NOT NULL DEFAULT now(),
  started_at       timestamptz,
  completed_at     timestamptz
);
-- Exactly one job per Idempotency-Key (enterprise, mode), even under concurrent duplicates.
CREATE UNIQUE INDEX jobs_idempotency_key ON jobs (enterprise_id, livemode, idempotency_key)
  WHERE idempotency_key IS NOT NULL;
CREATE INDEX jobs_list ON jobs (enterprise_id, livemode, created_at DESC, id DESC);
CREATE INDEX jobs_unsubmitted ON jobs (created_at) WHERE submitted_pass < pass OR status = 'queued';

CREATE TABLE job_items (
  job_id           text NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
  idx              integer NOT NULL,
  -- CSV data row (1-based, header not counted) or idx + 1 for the order form.
  row_number       integer NOT NULL,
  -- pending → success | failed (processing failure, retryable) | invalid (row error, final)
  -- | cancelled (never processed because the job was cancelled).
  status           text NOT NULL DEFAULT 'pending'
                   CHECK (status IN ('pending', 'success', 'failed', 'invalid', 'cancelled')),
  name             text NOT NULL DEFAULT '',
  -- {name, description, category?, imageUrl?, attributes?, metadata…, expiryDays, lineItemGid?}
  input            jsonb NOT NULL,
  -- Contacts are encrypted at rest (HALLMARK_ENCRYPTION_KEYS).
  recipient_email  text,
  recipient_name   text,
  media_id         text,
  -- The MintBatch idempotency key of the batch that took this item (set before the call).
  batch_key        text,
  certificate_id   text,
  voucher_id       text,
  reference_number text,
  voucher_url      text,
  voucher_expires_at timestamptz,
  token_id         bigint,
  transaction_hash text,
  block_number     bigint,
  error            text,
  attempts         integer NOT NULL DEFAULT 0,
  PRIMARY KEY (job_id, idx)
);
CREATE INDEX job_items_pending ON job_items (job_id, idx) WHERE status = 'pending' AND batch_key IS NULL;
CREATE INDEX job_items_batch ON job_items (job_id, batch_key) WHERE batch_key IS NOT NULL;

-- Images from uploaded ZIPs, served publicly under /media/<id> (content-addressed per job).
CREATE TABLE media (
  id            text PRIMARY KEY,
  enterprise_id text NOT NULL,
  job_id        text NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
  path          text NOT NULL,
  content_type  text NOT NULL,
  sha256        text NOT NULL,
  bytes         bytea NOT NULL,
  created_at    timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX media_job ON media (job_id);

-- Image URLs fetched for a job (one fetch per distinct URL per job; the result is kept so a
-- retried batch mints the same metadata).
CREATE TABLE job_image_urls (
  job_id       text NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
  url          text NOT NULL,
  sha256       text,
  content_type text,
  error        text,
  PRIMARY KEY (job_id, url)
);
