-- Certificate images archived by Hallmark (issue 17): one row per stored object, keyed by the
-- sha256 of the stored bytes (the bytes live in the blob store under objects/<sha256>).
CREATE TABLE media_objects (
  sha256       text PRIMARY KEY CHECK (sha256 ~ '^[0-9a-f]{64}$'),
  content_type text NOT NULL,
  size         bigint NOT NULL,
  width        integer NOT NULL DEFAULT 0,
  height       integer NOT NULL DEFAULT 0,
  created_at   timestamptz NOT NULL DEFAULT now()
);

-- Old ids that must keep answering (bulk's `/media/med_…` of ZIP uploads before the move).
CREATE TABLE media_aliases (
  id     text PRIMARY KEY,
  sha256 text NOT NULL REFERENCES media_objects (sha256)
);

-- WebP variants made once (480 / 1024 wide) and kept in the blob store.
CREATE TABLE media_variants (
  sha256 text NOT NULL REFERENCES media_objects (sha256),
  width  integer NOT NULL,
  size   bigint NOT NULL,
  PRIMARY KEY (sha256, width)
);

-- The backfill's verdict on certificates issued before archiving (hot-linked images):
-- archived (the URL's bytes matched the recorded sha256), unavailable, or changed.
CREATE TABLE certificate_images (
  certificate_id text PRIMARY KEY REFERENCES certificates (id),
  state          text NOT NULL CHECK (state IN ('archived', 'unavailable', 'changed')),
  sha256         text,
  detail         text,
  checked_at     timestamptz NOT NULL DEFAULT now()
);
