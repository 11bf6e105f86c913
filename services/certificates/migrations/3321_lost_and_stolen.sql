-- Lost and stolen (docs/lost-and-stolen.md, src/stolen/): the brand or the owner reports a
-- certificate stolen or lost; while the report is open every hand-over of the certificate is
-- refused (src/handover-store.ts); whoever the brand's policy allows clears it; the brand can
-- recover the token to a new owner (a transfer with purpose `recovery`).

-- Every report, open or cleared: who reported, when, why; who cleared, when, why. At most one
-- open report per certificate (the partial unique index), so two racing reports cannot both
-- win: the second finds the first and is refused.
CREATE TABLE certificate_stolen_reports (
  id                bigserial PRIMARY KEY,
  certificate_id    text NOT NULL REFERENCES certificates (id),
  enterprise_id     text NOT NULL,
  livemode          boolean NOT NULL,
  kind              text NOT NULL CHECK (kind IN ('stolen', 'lost')),
  reason            text NOT NULL CHECK (char_length(reason) BETWEEN 1 AND 1000),
  reported_by_type  text NOT NULL CHECK (reported_by_type IN ('brand', 'owner')),
  reported_by       text NOT NULL,
  reported_at       timestamptz NOT NULL DEFAULT now(),
  cleared_by_type   text CHECK (cleared_by_type IN ('brand', 'owner')),
  cleared_by        text,
  cleared_at        timestamptz,
  clear_reason      text CHECK (clear_reason IS NULL OR char_length(clear_reason) BETWEEN 1 AND 1000),
  -- Set when a brand recovery's confirmed transfer ended the report.
  recovered_to      text,
  CONSTRAINT certificate_stolen_reports_cleared_whole
    CHECK ((cleared_at IS NULL) = (cleared_by IS NULL) AND (cleared_at IS NULL) = (clear_reason IS NULL))
);
CREATE UNIQUE INDEX certificate_stolen_reports_open ON certificate_stolen_reports (certificate_id)
  WHERE cleared_at IS NULL;
CREATE INDEX certificate_stolen_reports_certificate ON certificate_stolen_reports (certificate_id, id);

-- The open report on the certificate row itself (its id and the public part: kind, date, who
-- reported), so every read of the row (the public read, the verification, the transfer's row
-- lock, the hand-over hold) sees the flag without a join, and the guard runs under the same
-- row lock as the hold it refuses.
ALTER TABLE certificates ADD COLUMN stolen jsonb;

-- Who may clear a report, per enterprise: `brand` (default: only the brand) or
-- `brand_or_reporter` (also the owner who reported it).
CREATE TABLE stolen_policies (
  enterprise_id text PRIMARY KEY,
  cleared_by    text NOT NULL CHECK (cleared_by IN ('brand', 'brand_or_reporter')),
  updated_at    timestamptz NOT NULL DEFAULT now()
);

-- A brand recovery is a transfer with its reason; its confirmation records `recovered`
-- provenance instead of `transferred`.
ALTER TABLE certificate_transfers
  ADD COLUMN purpose text NOT NULL DEFAULT 'transfer' CHECK (purpose IN ('transfer', 'recovery')),
  ADD COLUMN reason  text;

-- The provenance kinds of this feature. The list is 0601's plus ours: a later migration that
-- redefines the check must keep them.
ALTER TABLE provenance DROP CONSTRAINT IF EXISTS provenance_kind_check;
ALTER TABLE provenance ADD CONSTRAINT provenance_kind_check
  CHECK (kind IN ('minted', 'transferred', 'gifted', 'claimed', 'claim_reverted', 'burned', 'warranty_set',
                  'warranty_changed', 'reported_stolen', 'reported_lost', 'stolen_cleared', 'recovered'));
