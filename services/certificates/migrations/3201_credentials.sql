-- Verifiable credentials of certificates (issue 32, docs/credentials.md): issuer keys per
-- enterprise and mode, status lists, each certificate's signed credential, and the queue of
-- certificates due one (filled in the relayer's confirming transaction and, below, with every
-- certificate minted before this migration: the backfill).

-- P-256 Multikey pairs; the secret only encrypted (kit Encryptor, HALLMARK_ENCRYPTION_KEYS).
-- One current key per enterprise and mode; a rotation retires it (kept: the DID documents list
-- every key, so credentials it signed still verify).
CREATE TABLE issuer_keys (
  enterprise_id         text NOT NULL,
  livemode              boolean NOT NULL,
  seq                   integer NOT NULL CHECK (seq >= 1),
  public_key_multibase  text NOT NULL,
  secret_key_enc        text NOT NULL,
  retired_at            timestamptz,
  created_at            timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (enterprise_id, livemode, seq)
);
CREATE UNIQUE INDEX issuer_keys_current ON issuer_keys (enterprise_id, livemode) WHERE retired_at IS NULL;

-- Bitstring status lists: 131,072 bits (16 KB) each, index 0 = the first byte's most
-- significant bit. One list names one issuer DID (a status list's issuer must be its
-- credentials' issuer). `version` counts bit changes; the signed credential is cached with the
-- version and key it was signed at, and signed again when either moved.
CREATE TABLE status_lists (
  id              text PRIMARY KEY,
  enterprise_id   text NOT NULL,
  livemode        boolean NOT NULL,
  purpose         text NOT NULL CHECK (purpose IN ('revocation')),
  issuer_did      text NOT NULL,
  seq             integer NOT NULL CHECK (seq >= 1),
  size            integer NOT NULL CHECK (size > 0),
  next_index      integer NOT NULL DEFAULT 0 CHECK (next_index <= size),
  bits            bytea NOT NULL,
  version         bigint NOT NULL DEFAULT 0,
  signed_json     text,
  signed_version  bigint,
  signed_key_seq  integer,
  created_at      timestamptz NOT NULL DEFAULT now(),
  updated_at      timestamptz NOT NULL DEFAULT now(),
  UNIQUE (enterprise_id, livemode, purpose, issuer_did, seq)
);

-- One credential per certificate: the signed JSON exactly as issued, the DID it names and
-- the key that signed it, and its status entry.
CREATE TABLE certificate_credentials (
  certificate_id  text PRIMARY KEY REFERENCES certificates (id),
  enterprise_id   text NOT NULL,
  livemode        boolean NOT NULL,
  credential_id   text NOT NULL UNIQUE,
  issuer_did      text NOT NULL,
  key_seq         integer NOT NULL,
  status_list_id  text NOT NULL REFERENCES status_lists (id),
  status_index    integer NOT NULL CHECK (status_index >= 0),
  credential      text NOT NULL,
  issued_at       timestamptz NOT NULL DEFAULT now(),
  UNIQUE (status_list_id, status_index)
);

-- Minted certificates without a credential yet. The worker takes rows with SKIP LOCKED and
-- deletes them in the transaction that stores the credential: each is issued once.
CREATE TABLE credential_queue (
  certificate_id  text PRIMARY KEY REFERENCES certificates (id),
  enqueued_at     timestamptz NOT NULL DEFAULT now()
);

-- The backfill: every certificate minted before credentials existed.
INSERT INTO credential_queue (certificate_id, enqueued_at)
SELECT id, created_at FROM certificates WHERE token_id IS NOT NULL;
CREATE INDEX credential_queue_order ON credential_queue (enqueued_at, certificate_id);
