-- Certificate search (issue 34; src/search/): by voucher reference number (already unique,
-- certificate_vouchers_reference), by product (the name as a case-insensitive substring, or the
-- GTIN exactly: certificates_digital_link), and by the owner's e-mail.

-- The name as a substring, case-insensitive: trigrams make `name ILIKE '%…%'` an index scan.
-- pg_trgm is a trusted extension (PostgreSQL 13+): the database owner may create it.
CREATE EXTENSION IF NOT EXISTS pg_trgm;
CREATE INDEX certificates_name_trgm ON certificates USING gin (name gin_trgm_ops);

-- E-mails are stored encrypted (recipient_email_enc); their keyed blind index makes them
-- findable by equality: HMAC-SHA256 (hex) of the trimmed, lower-cased e-mail under a subkey of
-- HALLMARK_ENCRYPTION_KEYS (kit BlindIndex, purpose `recipient-email`). Never the e-mail itself.
-- Written with each new row; rows from before this migration are filled by the search slice's
-- backfill worker (src/search/workers/email-index.ts).
ALTER TABLE certificate_vouchers
  ADD COLUMN recipient_email_hmac text CHECK (recipient_email_hmac ~ '^[0-9a-f]{64}$');
ALTER TABLE gifts
  ADD COLUMN recipient_email_hmac text CHECK (recipient_email_hmac ~ '^[0-9a-f]{64}$');

CREATE INDEX certificate_vouchers_email_hmac ON certificate_vouchers (recipient_email_hmac)
  WHERE recipient_email_hmac IS NOT NULL;
CREATE INDEX gifts_email_hmac ON gifts (recipient_email_hmac) WHERE recipient_email_hmac IS NOT NULL;
-- What the backfill still has to index (empty once it has run; new rows never enter it).
CREATE INDEX certificate_vouchers_email_unindexed ON certificate_vouchers (id)
  WHERE recipient_email_hmac IS NULL AND recipient_email_enc IS NOT NULL;
CREATE INDEX gifts_email_unindexed ON gifts (id) WHERE recipient_email_hmac IS NULL;

-- ListGifts (newest first) reads gifts_enterprise (0801) backwards: no new index.
