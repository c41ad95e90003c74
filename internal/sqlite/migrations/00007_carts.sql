-- +goose Up
-- Add-to-cart events: a view's columns and the quantity added.
CREATE TABLE cart_events (
    id          INTEGER PRIMARY KEY,
    event_id    TEXT NOT NULL,
    product     INTEGER NOT NULL REFERENCES products (id),
    ts          INTEGER NOT NULL,
    given_ts    INTEGER,
    received_at INTEGER NOT NULL,
    session_id  TEXT,
    country     TEXT,
    locale      TEXT,
    keyed       INTEGER NOT NULL,
    quantity    INTEGER NOT NULL
);
CREATE INDEX cart_events_ts ON cart_events (ts);

-- +goose Down
DROP TABLE cart_events;
