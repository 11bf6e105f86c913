-- GS1 identity of a certificate (issue 32, docs/digital-link.md): a GTIN (normalised to 14
-- digits) and a serial (GS1 AI 21: 1–20 characters of CSET 82), both or neither. Its QR codes
-- then encode the GS1 Digital Link URI /01/<gtin>/21/<serial>, which the gateway resolves; so
-- one (GTIN, serial) names one certificate per mode, whichever enterprise issued it (the URI
-- carries no tenant).
ALTER TABLE certificates
  ADD COLUMN gtin   text CHECK (gtin ~ '^[0-9]{14}$'),
  ADD COLUMN serial text CHECK (char_length(serial) BETWEEN 1 AND 20),
  ADD CONSTRAINT certificates_gtin_serial_together CHECK ((gtin IS NULL) = (serial IS NULL));

-- The resolver looks an item up by (gtin, serial), live first; uniqueness is per mode.
CREATE UNIQUE INDEX certificates_digital_link ON certificates (gtin, serial, livemode)
  WHERE gtin IS NOT NULL;
