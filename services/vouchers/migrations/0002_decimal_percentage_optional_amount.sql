-- A percentage may have up to two decimals (12.5 %; the spec types value as a number from 1
-- to 100); a fixed amount stays whole minor units.
ALTER TABLE vouchers ALTER COLUMN value TYPE numeric(21, 2);
ALTER TABLE vouchers ADD CONSTRAINT vouchers_fixed_amount_whole CHECK (type <> 'fixed_amount' OR value = trunc(value));

-- A redemption may come without the order amount (the spec's redeem body is code and
-- order_id): then amount is NULL, and discount_applied too for a percentage voucher.
ALTER TABLE redemptions ALTER COLUMN amount DROP NOT NULL;
ALTER TABLE redemptions ALTER COLUMN discount_applied DROP NOT NULL;
