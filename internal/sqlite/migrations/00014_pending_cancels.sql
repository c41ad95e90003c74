-- +goose Up
-- The units of partial cancellations (refunds) of orders not stored yet
-- (svc.CancelOrder): an order takes them out when it comes, and the rest of
-- it counts. They expire with the events.
CREATE TABLE pending_cancels (
    id          INTEGER PRIMARY KEY,
    brand_id    TEXT NOT NULL,
    order_id    TEXT NOT NULL,
    event_id    TEXT NOT NULL,    -- of the cancellation
    product_id  TEXT NOT NULL,
    units       INTEGER NOT NULL,
    received_at INTEGER NOT NULL
);
CREATE INDEX pending_cancels_order ON pending_cancels (brand_id, order_id);
CREATE INDEX pending_cancels_received ON pending_cancels (received_at);

-- +goose Down
DROP TABLE pending_cancels;
