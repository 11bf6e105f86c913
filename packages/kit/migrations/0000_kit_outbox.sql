-- Transactional outbox: a state change and its event commit together; the relay publishes.
CREATE TABLE IF NOT EXISTS outbox (
  seq          bigserial PRIMARY KEY,
  id           text NOT NULL UNIQUE,
  subject      text NOT NULL,
  type         text NOT NULL,
  payload      jsonb NOT NULL,
  headers      jsonb NOT NULL DEFAULT '{}',
  created_at   timestamptz NOT NULL DEFAULT now(),
  published_at timestamptz
);
CREATE INDEX IF NOT EXISTS outbox_unpublished ON outbox (seq) WHERE published_at IS NULL;

-- Consumers record each event id they handled, in the same transaction as its effects.
CREATE TABLE IF NOT EXISTS processed_events (
  consumer     text NOT NULL,
  event_id     text NOT NULL,
  processed_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (consumer, event_id)
);
