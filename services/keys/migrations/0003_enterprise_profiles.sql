-- The issuer profile of an enterprise: what the public pages name it (display name, website,
-- logo URL) and the state of its domain proof (`/.well-known/hallmark-issuer.json` on the
-- website's host naming the enterprise id), checked through the outbound guard.
CREATE TABLE enterprise_profiles (
  enterprise_id     text PRIMARY KEY REFERENCES enterprises (id),
  display_name      text NOT NULL,
  website           text NOT NULL,
  logo_url          text,
  domain_verified   boolean NOT NULL DEFAULT false,
  domain_checked_at timestamptz NOT NULL,
  domain_detail     text NOT NULL DEFAULT '',
  updated_at        timestamptz NOT NULL
);
