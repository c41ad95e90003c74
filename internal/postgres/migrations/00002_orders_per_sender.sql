-- +goose Up
-- A brand's keyed orders and anonymous ones are apart (svc.Decide): an
-- anonymous purchase must not squat the id of a real order. The constraint
-- still makes an order count once across nodes, per sender.
ALTER TABLE purchase_events DROP CONSTRAINT purchase_events_brand_id_order_id_key;
ALTER TABLE purchase_events ADD CONSTRAINT purchase_events_brand_id_order_id_keyed_key UNIQUE (brand_id, order_id, keyed);

-- +goose Down
ALTER TABLE purchase_events DROP CONSTRAINT purchase_events_brand_id_order_id_keyed_key;
ALTER TABLE purchase_events ADD CONSTRAINT purchase_events_brand_id_order_id_key UNIQUE (brand_id, order_id);
