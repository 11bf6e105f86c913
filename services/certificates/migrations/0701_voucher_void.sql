-- Voided certificate vouchers: an unclaimed voucher whose order was cancelled (platform
-- orders/cancelled). A voided voucher can no longer be claimed; its certificate stays with
-- the issuer. Status is still derived at read: claimed, else voided, else expired/available.
ALTER TABLE certificate_vouchers ADD COLUMN voided_at timestamptz;
ALTER TABLE certificate_vouchers ADD COLUMN void_reason text;
