-- The claim repair pass (src/certificate-vouchers/claim-store.ts, CLAIMS_TO_REPAIR) runs every
-- few seconds and looks only at open claims: claimed, and whose transfer has not been seen
-- confirmed. Without this index each pass read the whole table, every unclaimed voucher too
-- (20 ms a pass at 50,000 vouchers, ~9% of the database's time during a 50,000-item bulk job,
-- issue 31), and an index of every claimed voucher would still grow with every claim ever made.
-- A claim leaves it once its transfer is confirmed (`claim_settled_at`, set by the pass:
-- SETTLE_CONFIRMED_CLAIMS); unclaimed vouchers never enter it.
ALTER TABLE certificate_vouchers ADD COLUMN claim_settled_at timestamptz;
UPDATE certificate_vouchers v SET claim_settled_at = t.updated_at
  FROM certificate_transfers t
 WHERE v.claimed_at IS NOT NULL AND t.enterprise_id = v.enterprise_id
   AND t.livemode = v.livemode AND t.transfer_key = v.claim_transfer_key AND t.status = 'confirmed';
CREATE INDEX certificate_vouchers_open_claims ON certificate_vouchers (claimed_at)
  WHERE claimed_at IS NOT NULL AND claim_settled_at IS NULL;
