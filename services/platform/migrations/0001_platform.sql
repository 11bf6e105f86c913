-- The platform integration (spec › Resources › Platform integration record) and its order
-- pipeline. Secrets (access token, webhook secret, supplied API keys) are AES-256-GCM
-- ciphertexts (kit Encryptor); states and setup tokens are stored only as SHA-256 hashes.

-- One row per shop; a shop belongs to one enterprise.
CREATE TABLE integrations (
  shop text PRIMARY KEY,
  enterprise_id text NOT NULL,
  livemode boolean NOT NULL,
  status text NOT NULL CHECK (status IN ('active', 'uninstalled')),
  access_token_enc text,
  scopes text NOT NULL DEFAULT '',
  api_key_id text,
  -- Hallmark created the key (so it is revoked on uninstall); false when the merchant supplied it.
  api_key_provisioned boolean NOT NULL DEFAULT false,
  webhook_secret_enc text NOT NULL,
  installed_by text NOT NULL,
  auto_fulfill boolean NOT NULL DEFAULT true,
  product_template_mapping jsonb,
  installed_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX integrations_enterprise ON integrations (enterprise_id);

-- Install states: single use, minutes long, bound to the user and enterprise that asked.
CREATE TABLE oauth_states (
  state_hash text PRIMARY KEY,
  shop text NOT NULL,
  principal jsonb NOT NULL,
  supplied_enc text,
  expires_at timestamptz NOT NULL
);

-- Setup tokens: the app fetches an install's credentials once with one.
CREATE TABLE setup_tokens (
  token_hash text PRIMARY KEY,
  shop text NOT NULL,
  credentials_enc text NOT NULL,
  expires_at timestamptz NOT NULL
);

-- Every inbound webhook accepted, for dedupe: by webhook id, and by topic + order.
CREATE TABLE inbound_webhooks (
  webhook_id text PRIMARY KEY,
  shop text NOT NULL,
  topic text NOT NULL,
  order_id text,
  received_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX inbound_webhooks_topic_order ON inbound_webhooks (shop, topic, order_id)
  WHERE order_id IS NOT NULL;

-- Orders heard from the platform. `payload_enc`: the latest order body (customer contact).
CREATE TABLE orders (
  shop text NOT NULL,
  order_id text NOT NULL,
  enterprise_id text NOT NULL,
  order_name text,
  status text NOT NULL CHECK (status IN ('created', 'paid', 'cancelled')),
  payload_enc text NOT NULL,
  -- Paid orders: the workflow was accepted by Restate (else the submitter re-sends it).
  workflow_submitted boolean NOT NULL DEFAULT false,
  job_id text,
  job_status text,
  voucher_ids text[] NOT NULL DEFAULT '{}',
  transaction_hash text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (shop, order_id)
);
CREATE INDEX orders_unsubmitted ON orders (created_at) WHERE status = 'paid' AND NOT workflow_submitted;

-- One fulfilment per order (auto-fulfilment or its retry).
CREATE TABLE fulfilments (
  shop text NOT NULL,
  order_id text NOT NULL,
  status text NOT NULL CHECK (status IN ('pending', 'fulfilled', 'failed', 'skipped')),
  attempts int NOT NULL DEFAULT 0,
  via text,
  tracking_number text,
  tracking_url text,
  error text,
  platform_fulfillment_id text,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (shop, order_id)
);
