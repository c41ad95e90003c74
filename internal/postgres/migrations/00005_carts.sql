-- +goose Up
-- Add-to-cart events: a view's columns and the quantity added; txid for
-- the change feed, as on every event table.
CREATE TABLE cart_events (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    event_id    text NOT NULL,
    product     bigint NOT NULL REFERENCES products (id),
    ts          bigint NOT NULL,
    given_ts    bigint,
    received_at bigint NOT NULL,
    session_id  text,
    country     text,
    locale      text,
    keyed       boolean NOT NULL,
    quantity    bigint NOT NULL,
    txid        xid8 NOT NULL DEFAULT pg_current_xact_id()
);
CREATE INDEX cart_events_ts ON cart_events (ts);
CREATE INDEX cart_events_txid ON cart_events (txid);

-- +goose Down
DROP TABLE cart_events;
