-- Discount vouchers and their redemptions. Money in integer minor units (bigint).
CREATE TABLE vouchers (
  id                    text PRIMARY KEY,
  enterprise_id         text NOT NULL,
  livemode              boolean NOT NULL,
  code                  text NOT NULL CHECK (code ~ '^[A-Za-z0-9]{4,32}$'),
  type                  text NOT NULL CHECK (type IN ('percentage', 'fixed_amount')),
  value                 bigint NOT NULL CHECK (value > 0 AND (type <> 'percentage' OR value <= 100)),
  currency              text CHECK (currency ~ '^[A-Z]{3}$'),
  -- Stored status; an active voucher past expires_at reads as expired before the sweeper persists it.
  status                text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'expired', 'used', 'inactive')),
  max_uses              bigint CHECK (max_uses > 0),
  max_uses_per_customer bigint CHECK (max_uses_per_customer > 0),
  times_used            bigint NOT NULL DEFAULT 0 CHECK (times_used >= 0),
  expires_at            timestamptz,
  description           text CHECK (char_length(description) <= 500),
  -- Bumped by every change of the row. Changes serialise on the row lock, so versions
  -- order the commits of redemptions and updates (the race tests rely on it).
  version               bigint NOT NULL DEFAULT 1,
  created_at            timestamptz NOT NULL DEFAULT now(),
  updated_at            timestamptz NOT NULL DEFAULT now(),
  -- The conditional redeem UPDATE keeps this; the constraint makes over-redemption impossible.
  CONSTRAINT vouchers_uses_within_max CHECK (status <> 'active' OR max_uses IS NULL OR times_used < max_uses)
);

-- Codes are unique per enterprise and mode, case-insensitively; stored as given.
CREATE UNIQUE INDEX vouchers_code_key ON vouchers (enterprise_id, livemode, lower(code));
CREATE INDEX vouchers_list ON vouchers (enterprise_id, livemode, created_at DESC, id DESC);
CREATE INDEX vouchers_expiring ON vouchers (expires_at) WHERE status = 'active' AND expires_at IS NOT NULL;

-- One row per (voucher, order): the idempotency key of redeem and rollback.
CREATE TABLE redemptions (
  voucher_id       text NOT NULL REFERENCES vouchers (id) ON DELETE CASCADE,
  order_id         text NOT NULL,
  enterprise_id    text NOT NULL,
  livemode         boolean NOT NULL,
  -- txn_… of the Transaction object; a new one when a rolled-back order redeems again.
  transaction_id   text NOT NULL UNIQUE,
  customer_id      text,
  user_id          text NOT NULL,
  amount           bigint NOT NULL CHECK (amount > 0),
  currency         text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
  discount_applied bigint NOT NULL CHECK (discount_applied >= 0 AND discount_applied <= amount),
  -- vouchers.version this redemption produced.
  voucher_version  bigint,
  created_at       timestamptz NOT NULL DEFAULT now(),
  rolled_back_at   timestamptz,
  PRIMARY KEY (voucher_id, order_id)
);
CREATE INDEX redemptions_customer ON redemptions (voucher_id, customer_id)
  WHERE customer_id IS NOT NULL AND rolled_back_at IS NULL;
