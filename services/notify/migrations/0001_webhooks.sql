-- Webhook endpoints (versioned surface), enterprise subscriptions and their deliveries.
-- Secrets are AES-256-GCM ciphertexts (kit Encryptor): we must sign with them, so they
-- cannot be hashed.

CREATE TABLE webhook_endpoints (
  id text PRIMARY KEY,
  enterprise_id text NOT NULL,
  livemode boolean NOT NULL,
  url text NOT NULL,
  events text[] NOT NULL CHECK (cardinality(events) > 0),
  description text,
  status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'disabled', 'failed')),
  secret_enc text NOT NULL,
  previous_secret_enc text,
  previous_secret_expires_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhook_endpoints_owner ON webhook_endpoints (enterprise_id, livemode, created_at DESC);

CREATE TABLE enterprise_subscriptions (
  id text PRIMARY KEY,
  enterprise_id text NOT NULL,
  livemode boolean NOT NULL,
  url text NOT NULL,
  events text[] NOT NULL CHECK (cardinality(events) > 0),
  enabled boolean NOT NULL,
  secret_enc text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX enterprise_subscriptions_owner ON enterprise_subscriptions (enterprise_id, livemode, created_at DESC);

-- One row per (event, endpoint) or (event, subscription): the unique indexes make the
-- fan-out idempotent. `body` is fixed at fan-out, so every attempt sends the same bytes;
-- the signature is computed at each attempt. `claim_token`/`next_attempt_at` form a
-- lease: a claimed row is invisible until its attempt is recorded or the lease runs out
-- (a worker that died mid-attempt), so replicas never send the same attempt twice.
CREATE TABLE webhook_deliveries (
  id text PRIMARY KEY,
  endpoint_id text REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
  subscription_id text REFERENCES enterprise_subscriptions (id) ON DELETE CASCADE,
  enterprise_id text NOT NULL,
  livemode boolean NOT NULL,
  event_id text NOT NULL,
  event_type text NOT NULL,
  body text NOT NULL,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'succeeded', 'failed')),
  attempts int NOT NULL DEFAULT 0,
  max_attempts int NOT NULL CHECK (max_attempts >= 1),
  next_attempt_at timestamptz,
  claim_token text,
  created_at timestamptz NOT NULL DEFAULT now(),
  delivered_at timestamptz,
  CHECK ((endpoint_id IS NULL) <> (subscription_id IS NULL)),
  CHECK ((status = 'pending') = (next_attempt_at IS NOT NULL))
);
CREATE UNIQUE INDEX webhook_deliveries_endpoint_event ON webhook_deliveries (endpoint_id, event_id);
CREATE UNIQUE INDEX webhook_deliveries_subscription_event ON webhook_deliveries (subscription_id, event_id);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_endpoint_recent ON webhook_deliveries (endpoint_id, created_at DESC);

CREATE TABLE webhook_attempts (
  delivery_id text NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
  attempt int NOT NULL,
  attempted_at timestamptz NOT NULL,
  status_code int,
  latency_ms int,
  error text,
  PRIMARY KEY (delivery_id, attempt)
);
