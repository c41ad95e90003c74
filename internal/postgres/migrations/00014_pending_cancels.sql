-- +goose Up
-- The units of partial cancellations (refunds) of orders not stored yet
-- (svc.CancelOrder): an order takes them out when it comes, and the rest of
-- it counts. They expire with the events.
CREATE TABLE pending_cancels (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    brand_id    text NOT NULL,
    order_id    text NOT NULL,
    event_id    text NOT NULL,    -- of the cancellation
    product_id  text NOT NULL,
    units       bigint NOT NULL,
    received_at bigint NOT NULL
);
CREATE INDEX pending_cancels_order ON pending_cancels (brand_id, order_id);
CREATE INDEX pending_cancels_received ON pending_cancels (received_at);

-- +goose Down
DROP TABLE pending_cancels;
