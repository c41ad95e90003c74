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

-- Where an order goes, coarsely, for the recent purchases feed.
ALTER TABLE purchase_events ADD COLUMN country TEXT;
ALTER TABLE purchase_events ADD COLUMN city TEXT;

-- A brand's privacy rules for that feed (svc.RecentSettings); seconds.
ALTER TABLE brands ADD COLUMN recent_delay INTEGER NOT NULL DEFAULT 300;
ALTER TABLE brands ADD COLUMN recent_window INTEGER NOT NULL DEFAULT 86400;
ALTER TABLE brands ADD COLUMN recent_max INTEGER NOT NULL DEFAULT 10;
ALTER TABLE brands ADD COLUMN recent_k INTEGER NOT NULL DEFAULT 3;

-- +goose Down
ALTER TABLE brands DROP COLUMN recent_k;
ALTER TABLE brands DROP COLUMN recent_max;
ALTER TABLE brands DROP COLUMN recent_window;
ALTER TABLE brands DROP COLUMN recent_delay;
ALTER TABLE purchase_events DROP COLUMN city;
ALTER TABLE purchase_events DROP COLUMN country;
DROP TABLE cart_events;
