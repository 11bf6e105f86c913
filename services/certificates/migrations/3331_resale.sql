-- Resale (issue 33, src/resale/): an owner's resale is a gift of kind `resale` (the same row,
-- claim link, single-use gate, workflow and hand-over hold), so a certificate has one pending
-- gift-or-resale at a time by the rules gifts already keep. What a resale adds:
--   approval: null (the brand's policy asks none), `requested` (the buyer is not e-mailed
--   and the claim is refused until the brand decides), `approved`, `refused` (the resale
--   ends `revoked`: the owner keeps the certificate); with the brand's reason and who decided.
ALTER TABLE gifts
  ADD COLUMN kind text NOT NULL DEFAULT 'gift' CHECK (kind IN ('gift', 'resale')),
  ADD COLUMN approval text CHECK (approval IN ('requested', 'approved', 'refused')),
  ADD COLUMN approval_reason text CHECK (char_length(approval_reason) <= 500),
  ADD COLUMN approval_decided_by text,
  ADD COLUMN approval_decided_at timestamptz,
  ADD CONSTRAINT gifts_approval_resale CHECK (approval IS NULL OR kind = 'resale');
CREATE INDEX gifts_awaiting_approval ON gifts (enterprise_id, livemode, created_at)
  WHERE approval = 'requested';

-- A completed resale's provenance entry. The list is 3321's (lost and stolen) plus `resold`: a
-- later migration that redefines the check must keep them all.
ALTER TABLE provenance DROP CONSTRAINT IF EXISTS provenance_kind_check;
ALTER TABLE provenance ADD CONSTRAINT provenance_kind_check
  CHECK (kind IN ('minted', 'transferred', 'gifted', 'resold', 'claimed', 'claim_reverted', 'burned',
                  'warranty_set', 'warranty_changed', 'reported_stolen', 'reported_lost', 'stolen_cleared',
                  'recovered'));

-- The brand's resale policy, per enterprise and mode (no row: no approval required).
CREATE TABLE resale_policies (
  enterprise_id     text NOT NULL,
  livemode          boolean NOT NULL,
  approval_required boolean NOT NULL,
  updated_by        text NOT NULL,
  updated_at        timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (enterprise_id, livemode)
);
