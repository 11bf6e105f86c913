-- Certificate vouchers: a claimable reference to one certificate held by the issuing
-- enterprise's custodial holding account (spec › Bulk mint job, JSON form › Certificate voucher).

-- One CreateVouchers call: its idempotency key per enterprise and mode.
CREATE TABLE certificate_voucher_requests (
  id               bigserial PRIMARY KEY,
  enterprise_id    text NOT NULL,
  livemode         boolean NOT NULL,
  idempotency_key  text NOT NULL CHECK (char_length(idempotency_key) BETWEEN 1 AND 255),
  -- sha256 of the canonical request: a replay with another request is a conflict.
  request_hash     text NOT NULL,
  actor_id         text,
  created_at       timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT certificate_voucher_requests_key UNIQUE (enterprise_id, livemode, idempotency_key)
);

-- Status is derived at read: claimed when claimed_at is set, else expired once expires_at has
-- passed, else available.
CREATE TABLE certificate_vouchers (
  id                    text PRIMARY KEY,
  enterprise_id         text NOT NULL,
  livemode              boolean NOT NULL,
  request_id            bigint NOT NULL REFERENCES certificate_voucher_requests (id),
  position              integer NOT NULL CHECK (position >= 0),
  -- HM-XXXX-XXXX-C (Crockford base32, mod-37 check symbol), canonical form.
  reference_number      text NOT NULL,
  -- The view URL handed out (HALLMARK_PUBLIC_URL/vouchers/<id> when it was created).
  url                   text NOT NULL,
  certificate_id        text NOT NULL REFERENCES certificates (id),
  metadata              jsonb NOT NULL,
  -- Recipient contact data, encrypted with the kit Encryptor (HALLMARK_ENCRYPTION_KEYS).
  recipient_email_enc   text,
  recipient_name_enc    text,
  line_item_gid         text,
  expires_at            timestamptz NOT NULL,
  -- When voucher.minted was recorded (once: at creation or when the batch confirmed).
  minted_event_at       timestamptz,
  -- The recipient (user id and the user's own enterprise), their custodial wallet, and the
  -- key of the transfer that moves the token there (certificate_transfers.transfer_key, in the
  -- issuing enterprise: 'claim:<voucher id>').
  claimed_by            text,
  claimed_by_enterprise text,
  claimed_at            timestamptz,
  claim_to_address      text,
  claim_transfer_key    text,
  created_at            timestamptz NOT NULL DEFAULT now(),
  updated_at            timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT certificate_vouchers_reference UNIQUE (reference_number),
  CONSTRAINT certificate_vouchers_certificate UNIQUE (certificate_id),
  CONSTRAINT certificate_vouchers_claim CHECK ((claimed_by IS NULL) = (claimed_at IS NULL))
);
CREATE INDEX certificate_vouchers_request ON certificate_vouchers (request_id, position);
CREATE INDEX certificate_vouchers_enterprise ON certificate_vouchers (enterprise_id, livemode, created_at DESC);

