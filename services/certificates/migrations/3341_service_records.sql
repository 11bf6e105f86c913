-- Service records (docs/service-records.md, src/service-records/): the brand, or a repairer's
-- key of the brand (scope `service_records.write`), appends what was done to an item (repair,
-- authentication check, refurbishment, other with a label), with photos and scanned documents
-- archived through the media slice. The owner accepts or refuses each; only accepted records
-- are public (the verify page's "Service history", the public read). Refused ones stay here
-- for the brand.
CREATE TABLE certificate_service_records (
  id             text PRIMARY KEY,
  certificate_id text NOT NULL REFERENCES certificates (id),
  enterprise_id  text NOT NULL,
  livemode       boolean NOT NULL,
  kind           text NOT NULL CHECK (kind IN ('repair', 'authentication_check', 'refurbishment', 'other')),
  -- The brand's own name for an `other` record (required then, absent otherwise).
  label          text CHECK (label IS NULL OR char_length(label) BETWEEN 1 AND 100),
  performed_at   timestamptz NOT NULL,
  performer      text NOT NULL CHECK (char_length(performer) BETWEEN 1 AND 200),
  description    text NOT NULL CHECK (char_length(description) BETWEEN 1 AND 4000),
  -- [{kind: photo | document, sha256, contentType, width, height, caption?}]: media_objects.
  attachments    jsonb NOT NULL DEFAULT '[]',
  -- `brand`: a key with brand scopes or a session of the brand's users; `repairer`: a key of the
  -- brand holding service_records.write and nothing of the brand's.
  added_by_type  text NOT NULL CHECK (added_by_type IN ('brand', 'repairer')),
  added_by       text NOT NULL,
  created_at     timestamptz NOT NULL DEFAULT now(),
  status         text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'accepted', 'refused')),
  decided_by     text,
  decided_at     timestamptz,
  CONSTRAINT certificate_service_records_label CHECK ((kind = 'other') = (label IS NOT NULL)),
  CONSTRAINT certificate_service_records_decided
    CHECK ((status = 'pending') = (decided_at IS NULL) AND (decided_at IS NULL) = (decided_by IS NULL))
);
CREATE INDEX certificate_service_records_certificate
  ON certificate_service_records (certificate_id, performed_at, id);

-- The accepted records' public part on the certificate row itself, oldest performed first, so
-- every read of the row (the public read, the verification, the verify page) carries the
-- service history without a join; written under the row lock with the decision.
ALTER TABLE certificates ADD COLUMN service_history jsonb NOT NULL DEFAULT '[]';

-- No provenance kind of its own: a service record is not a change of hands, and the verify
-- page shows the history in its own section. (So this migration leaves provenance_kind_check
-- as 3321 and any later slice define it.)
