-- ZIP images move to the certificates service's media store (issue 17): a row keeps its id
-- (old `/media/med_…` URLs keep answering: certificates holds the id as an alias), its path
-- and type; `bytes` is emptied once the image is archived there under `archived_sha256`.
ALTER TABLE media ALTER COLUMN bytes DROP NOT NULL;
ALTER TABLE media ADD COLUMN archived_sha256 text;
CREATE INDEX media_unmoved ON media (id) WHERE bytes IS NOT NULL;
