-- Gifts (spec › Gift transfer; src/gifts/). One row per gift while it lives: an expired gift
-- is deleted (spec: "record removed"); revoked and claimed ones stay for the sender's record.
--   pending → claiming (token taken by one recipient, transfer on its way) → claimed
--   pending → revoked
CREATE TABLE gifts (
  id                   text PRIMARY KEY CHECK (id LIKE 'gift\_%'),
  enterprise_id        text NOT NULL,
  livemode             boolean NOT NULL,
  certificate_id       text NOT NULL REFERENCES certificates (id),
  -- Who created it (user_… or apikey_…): only they may resend or revoke.
  creator_id           text NOT NULL,
  sender_address       text NOT NULL,
  -- Recipient contact data, encrypted (kit Encryptor); the phone also as SHA-256 of E.164.
  recipient_email_enc  text NOT NULL,
  recipient_phone_enc  text,
  recipient_phone_hash text,
  sender_email_enc     text,
  message              text CHECK (char_length(message) <= 500),
  -- SHA-256 (hex) of the claim token; the token itself is never stored.
  claim_token_hash     text NOT NULL UNIQUE,
  status               text NOT NULL DEFAULT 'pending'
                       CHECK (status IN ('pending', 'claiming', 'claimed', 'revoked')),
  expires_at           timestamptz NOT NULL,
  -- The recipient once claimed: user, wallet, the transfer's key and attempt.
  claimed_by           text,
  recipient_address    text,
  transfer_attempt     integer NOT NULL DEFAULT 0,
  transaction_hash     text,
  block_number         bigint,
  -- Always null: no account abstraction.
  user_operation_hash  text,
  resend_count         integer NOT NULL DEFAULT 0,
  -- Set once Restate accepted the gift's workflow (the starter worker retries until then).
  workflow_started_at  timestamptz,
  created_at           timestamptz NOT NULL DEFAULT now(),
  updated_at           timestamptz NOT NULL DEFAULT now(),
  claimed_at           timestamptz,
  revoked_at           timestamptz
);
-- At most one open gift per certificate.
CREATE UNIQUE INDEX gifts_open ON gifts (certificate_id) WHERE status IN ('pending', 'claiming');
CREATE INDEX gifts_enterprise ON gifts (enterprise_id, livemode, created_at);
CREATE INDEX gifts_unstarted ON gifts (created_at) WHERE workflow_started_at IS NULL;
CREATE INDEX gifts_phone ON gifts (recipient_phone_hash) WHERE recipient_phone_hash IS NOT NULL;
