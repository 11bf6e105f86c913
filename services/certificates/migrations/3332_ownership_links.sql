-- Proof-of-ownership links (src/ownership/): an owner shows anyone holding the link that
-- they hold a certificate as of now. The link names the holder address it was made for; the
-- public read compares it with the certificate's holder at read time. The token (32 random
-- bytes, base64url) is shown once and stored only as its SHA-256.
CREATE TABLE ownership_links (
  id             text PRIMARY KEY CHECK (id LIKE 'ownlink\_%'),
  enterprise_id  text NOT NULL,
  livemode       boolean NOT NULL,
  certificate_id text NOT NULL REFERENCES certificates (id),
  owner_id       text NOT NULL,
  holder_address text NOT NULL,
  token_hash     text NOT NULL UNIQUE,
  expires_at     timestamptz NOT NULL,
  revoked_at     timestamptz,
  created_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX ownership_links_owner ON ownership_links (enterprise_id, livemode, owner_id, created_at);
