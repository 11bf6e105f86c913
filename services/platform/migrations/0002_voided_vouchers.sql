-- orders/cancelled voids the order's unclaimed certificate vouchers (certificates
-- VoidVouchers); true once that call succeeded, so a failed one is retried by the submitter.
ALTER TABLE orders ADD COLUMN vouchers_voided boolean NOT NULL DEFAULT false;
CREATE INDEX orders_unvoided ON orders (updated_at)
  WHERE status = 'cancelled' AND NOT vouchers_voided AND cardinality(voucher_ids) > 0;
