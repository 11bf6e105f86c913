-- An order id is the platform's, unique across shops: a delivery of an order already heard
-- from another shop is refused (the shop header is not signed). This finds those by order.
CREATE INDEX inbound_webhooks_order ON inbound_webhooks (order_id) WHERE order_id IS NOT NULL;
