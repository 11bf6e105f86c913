-- Keys service: enterprises, users, API keys and their secrets (hashes only), shares,
-- usage roll-ups, usage batch receipts and the audit log.

CREATE TABLE enterprises (
  id         text PRIMARY KEY CHECK (id ~ '^ent_[0-9A-Za-z]{24}$'),
  created_at timestamptz NOT NULL
);

-- Provisioned on first use of a session token; one row per (enterprise, token subject).
CREATE TABLE users (
  id            text PRIMARY KEY,
  enterprise_id text NOT NULL REFERENCES enterprises (id),
  subject       text NOT NULL,
  email         text,
  role          text NOT NULL CHECK (role IN ('owner', 'admin', 'member')),
  created_at    timestamptz NOT NULL,
  updated_at    timestamptz NOT NULL,
  UNIQUE (enterprise_id, subject)
);

CREATE TABLE api_keys (
  id                    text PRIMARY KEY,
  enterprise_id         text NOT NULL REFERENCES enterprises (id),
  name                  text NOT NULL,
  type                  text NOT NULL CHECK (type IN ('production', 'test', 'restricted', 'enterprise')),
  livemode              boolean NOT NULL,
  permissions           text[] NOT NULL,
  rate_limit_per_minute integer NOT NULL CHECK (rate_limit_per_minute > 0),
  requests_per_hour     integer NOT NULL CHECK (requests_per_hour > 0),
  burst_limit           integer NOT NULL CHECK (burst_limit > 0),
  allowed_ips           text[] NOT NULL DEFAULT '{}',
  -- Non-secret display form of the current secret, e.g. pk_live_a1B2.
  key_prefix            text NOT NULL,
  expires_at            timestamptz,
  created_at            timestamptz NOT NULL,
  created_by            text NOT NULL,
  updated_at            timestamptz NOT NULL,
  last_used_at          timestamptz,
  revoked_at            timestamptz
);
CREATE INDEX api_keys_by_enterprise ON api_keys (enterprise_id, created_at DESC);

-- SHA-256 hex of each secret a key has had. grace_until NULL marks the current secret;
-- an old one (after rotation) verifies until its grace_until.
CREATE TABLE api_key_secrets (
  secret_hash text PRIMARY KEY CHECK (secret_hash ~ '^[0-9a-f]{64}$'),
  key_id      text NOT NULL REFERENCES api_keys (id),
  created_at  timestamptz NOT NULL,
  grace_until timestamptz
);
CREATE UNIQUE INDEX api_key_secrets_one_current ON api_key_secrets (key_id) WHERE grace_until IS NULL;

CREATE TABLE key_shares (
  key_id      text NOT NULL REFERENCES api_keys (id),
  user_id     text NOT NULL REFERENCES users (id),
  level       text NOT NULL CHECK (level IN ('viewer', 'editor', 'admin')),
  permissions text[] NOT NULL,
  created_at  timestamptz NOT NULL,
  updated_at  timestamptz NOT NULL,
  PRIMARY KEY (key_id, user_id)
);
CREATE INDEX key_shares_by_user ON key_shares (user_id);

-- RecordUsage is idempotent by batch id: a batch seen before is acknowledged, not re-applied.
CREATE TABLE usage_batches (
  batch_id    text PRIMARY KEY,
  accepted    integer NOT NULL,
  received_at timestamptz NOT NULL
);

CREATE TABLE key_usage_hourly (
  key_id         text NOT NULL REFERENCES api_keys (id),
  hour           timestamptz NOT NULL,
  method         text NOT NULL,
  path           text NOT NULL,
  requests       bigint NOT NULL,
  successes      bigint NOT NULL,
  failures       bigint NOT NULL,
  latency_ms_sum double precision NOT NULL,
  PRIMARY KEY (key_id, hour, method, path)
);

CREATE TABLE audit_logs (
  id            bigserial PRIMARY KEY,
  key_id        text NOT NULL REFERENCES api_keys (id),
  enterprise_id text NOT NULL,
  action        text NOT NULL CHECK (action IN ('key.created', 'key.used', 'key.updated', 'key.revoked', 'key.shared', 'key.rotated')),
  user_id       text,
  ip_address    text,
  endpoint      text,
  status_code   integer,
  created_at    timestamptz NOT NULL
);
CREATE INDEX audit_logs_by_key ON audit_logs (key_id, created_at DESC, id DESC);
