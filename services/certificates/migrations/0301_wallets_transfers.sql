-- Custodial wallets (one per user and one per enterprise holding account) and transfers of
-- certificates by the holder's signature (ERC-4494 TransferPermit, relayed).

-- The key is encrypted at rest with the kit Encryptor (HALLMARK_ENCRYPTION_KEYS, AES-256-GCM
-- envelope); only the service decrypts it, to sign a permit.
CREATE TABLE wallets (
  owner_kind    text NOT NULL CHECK (owner_kind IN ('enterprise', 'user')),
  owner_id      text NOT NULL,
  -- The enterprise the wallet belongs to (its own id for an enterprise holding account).
  enterprise_id text NOT NULL,
  address       text NOT NULL UNIQUE CHECK (address ~ '^0x[0-9a-fA-F]{40}$'),
  encrypted_key text NOT NULL,
  created_at    timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (owner_kind, owner_id)
);
CREATE INDEX wallets_enterprise ON wallets (enterprise_id);

-- One Transfer call: recorded (with its transfer key) before anything is signed, then the
-- relayer's transaction (nonce, raw bytes, hash persisted before the broadcast):
--   pending → signed → sent → confirmed | failed
CREATE TABLE certificate_transfers (
  id               bigserial PRIMARY KEY,
  enterprise_id    text NOT NULL,
  livemode         boolean NOT NULL,
  transfer_key     text NOT NULL CHECK (char_length(transfer_key) BETWEEN 1 AND 255),
  request_hash     text NOT NULL,
  certificate_id   text NOT NULL REFERENCES certificates (id),
  token_id         numeric(78, 0) NOT NULL,
  from_address     text NOT NULL,
  to_address       text NOT NULL,
  to_user_id       text,
  actor_id         text,
  signer           text,
  nonce            bigint,
  raw_tx           text,
  tx_hash          text,
  block_number     bigint,
  status           text NOT NULL DEFAULT 'pending'
                   CHECK (status IN ('pending', 'signed', 'sent', 'confirmed', 'failed')),
  last_error       text,
  created_at       timestamptz NOT NULL DEFAULT now(),
  updated_at       timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT certificate_transfers_key UNIQUE (enterprise_id, livemode, transfer_key)
);
-- At most one transfer of a certificate in flight at a time.
CREATE UNIQUE INDEX certificate_transfers_open ON certificate_transfers (certificate_id)
  WHERE status IN ('pending', 'signed', 'sent');
