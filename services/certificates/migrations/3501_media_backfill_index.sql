-- The media backfill's candidates (src/media/store.ts, backfillCandidates): certificates whose
-- image is hot-linked (not Hallmark's /media/) and whose metadata anchors its sha256. Without
-- this index every pass (each minute) read the whole table, archived images and dead row
-- versions included, to find none: ~20% of the database's time during a 50,000-item bulk job
-- (issue 31). Certificates minted with archived images never enter it.
CREATE INDEX certificates_hotlinked ON certificates (id)
  WHERE image_url IS NOT NULL AND image_url NOT LIKE '%/media/%'
    AND (metadata -> 'image' ->> 'sha256') IS NOT NULL;
