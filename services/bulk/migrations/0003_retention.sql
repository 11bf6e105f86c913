-- Retention (kit retention.ts) deletes the items and image URLs of jobs finished long ago:
-- this finds those jobs by when they finished (their rows then by primary key).
CREATE INDEX IF NOT EXISTS jobs_finished ON jobs (completed_at)
  WHERE status IN ('completed', 'failed', 'cancelled');
