-- The issuer profile's logo as Hallmark archived it (the certificates media store's sha256 and
-- the picture's size; `logo_url` stays its source), and whether the enterprise lets search
-- engines index its certificates' verify pages (off unless it opts in).
ALTER TABLE enterprise_profiles
  ADD COLUMN logo_sha256 text CHECK (logo_sha256 ~ '^[0-9a-f]{64}$'),
  ADD COLUMN logo_width integer NOT NULL DEFAULT 0,
  ADD COLUMN logo_height integer NOT NULL DEFAULT 0,
  ADD COLUMN indexable boolean NOT NULL DEFAULT false;
