-- Warranty of a certificate (shown as metadata.warranty, kept out of `metadata` so the
-- metadata hash proven on chain never changes), its provenance kinds, and the enterprise's
-- warranty template.
ALTER TABLE certificates ADD COLUMN warranty jsonb;

ALTER TABLE provenance DROP CONSTRAINT IF EXISTS provenance_kind_check;
ALTER TABLE provenance ADD CONSTRAINT provenance_kind_check
  CHECK (kind IN ('minted', 'transferred', 'gifted', 'claimed', 'burned', 'warranty_set', 'warranty_changed'));

-- One warranty template per enterprise (POST /api/enterprise/templates/init-warranty).
CREATE TABLE warranty_templates (
  id            text PRIMARY KEY,
  enterprise_id text NOT NULL UNIQUE,
  name          text NOT NULL,
  fields        jsonb NOT NULL,
  created_at    timestamptz NOT NULL DEFAULT now()
);
