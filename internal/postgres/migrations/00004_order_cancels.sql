-- +goose Up
-- What each cancellation or refund took out of each product of an order
-- (svc.CancelOrder): purchase_items.quantity keeps what is left, and the
-- change feed hands these rows to the other nodes, which counted the
-- order before.
CREATE TABLE order_cancels (
    id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    event_id     text NOT NULL,    -- of the cancellation
    purchase     bigint NOT NULL REFERENCES purchase_events (id) ON DELETE CASCADE,
    product      bigint NOT NULL REFERENCES products (id),
    ts           bigint NOT NULL,  -- the order's
    units        bigint NOT NULL,
    orders       bigint NOT NULL,  -- 1 when none of the product is left in the order
    currency     text,
    price_before double precision,
    price_after  double precision,
    received_at  bigint NOT NULL,
    txid         xid8 NOT NULL DEFAULT pg_current_xact_id()
);
CREATE INDEX order_cancels_purchase ON order_cancels (purchase);
CREATE INDEX order_cancels_txid ON order_cancels (txid);

-- +goose Down
DROP TABLE order_cancels;
