-- Listen sessions (`hallmark listen`): a subscription of their own, whose deliveries are
-- written to a server stream instead of POSTed. And the health of enterprise
-- subscriptions: failed attempts in a row, `failing` and automatic `disabled`.

CREATE TABLE listen_sessions (
  id text PRIMARY KEY,
  enterprise_id text NOT NULL,
  livemode boolean NOT NULL,
  -- Empty: every versioned and enterprise type.
  events text[] NOT NULL,
  secret_enc text NOT NULL,
  actor_id text,
  created_at timestamptz NOT NULL DEFAULT now(),
  -- Refreshed by the process holding the stream; a session not seen for a minute is over
  -- (that process died) and is ended by any replica's sweep.
  seen_at timestamptz NOT NULL DEFAULT now(),
  ended_at timestamptz,
  end_reason text
);
CREATE INDEX listen_sessions_open ON listen_sessions (enterprise_id, livemode) WHERE ended_at IS NULL;

ALTER TABLE webhook_deliveries ADD COLUMN session_id text REFERENCES listen_sessions (id) ON DELETE CASCADE;
-- webhook_deliveries_check: exactly one of endpoint, subscription (now: or session).
ALTER TABLE webhook_deliveries DROP CONSTRAINT webhook_deliveries_check;
ALTER TABLE webhook_deliveries ADD CONSTRAINT webhook_deliveries_one_target
  CHECK (num_nonnulls(endpoint_id, subscription_id, session_id) = 1);
CREATE UNIQUE INDEX webhook_deliveries_session_event ON webhook_deliveries (session_id, event_id);
CREATE INDEX webhook_deliveries_subscription_recent ON webhook_deliveries (subscription_id, created_at DESC);

ALTER TABLE enterprise_subscriptions
  ADD COLUMN status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'failing', 'disabled')),
  ADD COLUMN consecutive_failures int NOT NULL DEFAULT 0,
  ADD COLUMN last_failure_at timestamptz,
  ADD COLUMN last_error text;
UPDATE enterprise_subscriptions SET status = 'disabled' WHERE NOT enabled;
