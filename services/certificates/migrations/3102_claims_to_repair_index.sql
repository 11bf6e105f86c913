-- The claim repair pass (src/certificate-vouchers/claim-store.ts, CLAIMS_TO_REPAIR) runs every
-- few seconds and looks only at claimed vouchers. Without this index each pass read the whole
-- table, every unclaimed voucher too: 20 ms a pass at 50,000 vouchers, ~9% of the database's
-- time during a 50,000-item bulk job (issue 31), and growing with every voucher ever issued.
-- Unclaimed vouchers (most of them, most of the time) never enter it.
CREATE INDEX certificate_vouchers_claimed ON certificate_vouchers (claimed_at) WHERE claimed_at IS NOT NULL;
