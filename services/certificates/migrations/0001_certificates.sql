-- Certificates, their batches, provenance, and the relayer's chain submissions.

-- Small persistent facts about the chain, e.g. the dev contract deployed at start
-- (key 'contract:<chainId>').
CREATE TABLE chain_state (
  key        text PRIMARY KEY,
  value      text NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- One MintBatch call: the idempotency key of the RPC and the unit the relayer mints.
CREATE TABLE certificate_batches (
  id               text PRIMARY KEY,
  enterprise_id    text NOT NULL,
  livemode         boolean NOT NULL,
  idempotency_key  text NOT NULL CHECK (char_length(idempotency_key) BETWEEN 1 AND 255),
  -- sha256 of the canonical request: a replay with another request is a conflict.
  request_hash     text NOT NULL,
  holder_address   text NOT NULL CHECK (holder_address ~ '^0x[0-9a-fA-F]{40}$'),
  quantity         integer NOT NULL CHECK (quantity > 0),
  merkle_root      text NOT NULL,
  actor_id         text,
  status           text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'minted', 'failed')),
  created_at       timestamptz NOT NULL DEFAULT now(),
  updated_at       timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT certificate_batches_idempotency UNIQUE (enterprise_id, livemode, idempotency_key)
);

CREATE TABLE certificates (
  id               text PRIMARY KEY,
  enterprise_id    text NOT NULL,
  livemode         boolean NOT NULL,
  batch_id         text NOT NULL REFERENCES certificate_batches (id),
  -- Position in the batch: token_id = first token id of the batch + position.
  position         integer NOT NULL CHECK (position >= 0),
  token_id         numeric(78, 0),
  name             text NOT NULL,
  image_url        text,
  metadata         jsonb NOT NULL,
  metadata_hash    text NOT NULL,
  holder_address   text NOT NULL,
  status           text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'minted', 'burned')),
  transaction_hash text,
  block_number     bigint,
  created_at       timestamptz NOT NULL DEFAULT now(),
  updated_at       timestamptz NOT NULL DEFAULT now(),
  UNIQUE (batch_id, position)
);
CREATE UNIQUE INDEX certificates_token ON certificates (token_id) WHERE token_id IS NOT NULL;
CREATE INDEX certificates_enterprise ON certificates (enterprise_id, livemode, created_at DESC);

CREATE TABLE provenance (
  seq              bigserial PRIMARY KEY,
  certificate_id   text NOT NULL REFERENCES certificates (id),
  kind             text NOT NULL
                   CHECK (kind IN ('minted', 'transferred', 'gifted', 'claimed', 'burned', 'warranty_set')),
  actor            text,
  from_address     text,
  to_address       text,
  transaction_hash text,
  block_number     bigint,
  at               timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX provenance_certificate ON provenance (certificate_id, seq);

-- The relayer's record of one chain transaction per batch, written BEFORE anything is sent:
--   pending   → recorded, nothing signed yet
--   signed    → nonce, raw signed transaction and its hash persisted; it may or may not have
--               reached the node (a crash between persisting and broadcasting leaves this)
--   sent      → the node accepted the broadcast
--   confirmed → mined with HALLMARK_CHAIN_CONFIRMATIONS confirmations; chain refs recorded
--   failed    → the transaction reverted for another reason than a used batch key
-- After a restart every non-final row is reconciled with the chain (batchByKey) before
-- anything is (re)sent; the contract itself refuses a batch key twice.
CREATE TABLE chain_submissions (
  id               bigserial PRIMARY KEY,
  batch_id         text NOT NULL UNIQUE REFERENCES certificate_batches (id),
  -- keccak256 of the batch's idempotency key (enterprise, livemode, key): unique on chain.
  batch_key        text NOT NULL UNIQUE,
  contract_address text NOT NULL,
  signer           text,
  nonce            bigint,
  raw_tx           text,
  tx_hash          text,
  status           text NOT NULL DEFAULT 'pending'
                   CHECK (status IN ('pending', 'signed', 'sent', 'confirmed', 'failed')),
  first_token_id   numeric(78, 0),
  block_number     bigint,
  attempts         integer NOT NULL DEFAULT 0,
  last_error       text,
  created_at       timestamptz NOT NULL DEFAULT now(),
  sent_at          timestamptz,
  confirmed_at     timestamptz
);
CREATE INDEX chain_submissions_open ON chain_submissions (id) WHERE status IN ('pending', 'signed', 'sent');
