-- When the job's last retry was accepted: a retried job's time is measured from here, not
-- from its creation (a watcher that attaches late cannot know when the retry began).
ALTER TABLE jobs ADD COLUMN retried_at timestamptz;
