-- +goose Up
-- What each cancellation or refund took out of each product of an order
-- (svc.CancelOrder): purchase_items.quantity keeps what is left, and
-- these rows let a snapshot taken before a cancellation catch up with it.
-- AUTOINCREMENT: the positions of the event log are never reused.
CREATE TABLE order_cancels (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    event_id     TEXT NOT NULL,    -- of the cancellation
    purchase     INTEGER NOT NULL REFERENCES purchase_events (id) ON DELETE CASCADE,
    product      INTEGER NOT NULL REFERENCES products (id),
    ts           INTEGER NOT NULL, -- the order's
    units        INTEGER NOT NULL,
    orders       INTEGER NOT NULL, -- 1 when none of the product is left in the order
    currency     TEXT,
    price_before REAL,
    price_after  REAL,
    received_at  INTEGER NOT NULL
);
CREATE INDEX order_cancels_purchase ON order_cancels (purchase);

-- +goose Down
DROP TABLE order_cancels;
