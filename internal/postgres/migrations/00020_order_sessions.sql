-- +goose Up
-- The sessions of a shop's orders whose webhook carries none
-- (svc.OrderSessionStore): per order and hash of its key, the session of
-- the order-received page that showed it, and whether the signed webhook
-- gave that key. Kept svc.OrderSessionTTL.
CREATE TABLE order_sessions (
    brand_id     text NOT NULL,
    order_id     text NOT NULL,
    key_hash     text NOT NULL,
    session_id   text,
    from_webhook boolean NOT NULL,
    received_at  bigint NOT NULL,
    PRIMARY KEY (brand_id, order_id, key_hash)
);
CREATE INDEX order_sessions_received ON order_sessions (received_at);

-- +goose Down
DROP TABLE order_sessions;
