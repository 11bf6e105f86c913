-- The public issuer profile of each enterprise, as the keys service last announced it
-- (`enterprise_profile.updated`): what the public reads name the issuer by ("Issued by"),
-- answered from here so a QR scan never waits on keys. `as_of` orders announcements: an
-- older one arriving late never overwrites a newer one.
CREATE TABLE issuer_profiles (
  enterprise_id   text PRIMARY KEY,
  display_name    text NOT NULL,
  website         text NOT NULL,
  domain_verified boolean NOT NULL,
  logo_sha256     text,
  logo_width      integer NOT NULL DEFAULT 0,
  logo_height     integer NOT NULL DEFAULT 0,
  indexable       boolean NOT NULL DEFAULT false,
  as_of           timestamptz NOT NULL
);
