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

-- Where an order goes, coarsely, for the recent purchases feed.
ALTER TABLE purchase_events ADD COLUMN country text;
ALTER TABLE purchase_events ADD COLUMN city text;

-- A brand's privacy rules for that feed (svc.RecentSettings); seconds.
ALTER TABLE brands ADD COLUMN recent_delay bigint NOT NULL DEFAULT 300;
ALTER TABLE brands ADD COLUMN recent_window bigint NOT NULL DEFAULT 86400;
ALTER TABLE brands ADD COLUMN recent_max integer NOT NULL DEFAULT 10;
ALTER TABLE brands ADD COLUMN recent_k integer NOT NULL DEFAULT 3;

-- +goose Down
ALTER TABLE brands DROP COLUMN recent_k, DROP COLUMN recent_max, DROP COLUMN recent_window, DROP COLUMN recent_delay;
ALTER TABLE purchase_events DROP COLUMN city, DROP COLUMN country;
DROP TABLE cart_events;
