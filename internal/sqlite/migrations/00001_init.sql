-- +goose Up
CREATE TABLE brands (
    id             TEXT PRIMARY KEY,
    name           TEXT NOT NULL,
    domains        TEXT NOT NULL DEFAULT '[]', -- JSON array of host names
    require_key    INTEGER NOT NULL DEFAULT 0,
    closed_catalog INTEGER NOT NULL DEFAULT 0,
    min_viewers    INTEGER NOT NULL DEFAULT 3,  -- honesty thresholds: smaller counts are not shown
    min_purchases  INTEGER NOT NULL DEFAULT 1,
    created_at     INTEGER NOT NULL             -- unix milliseconds, as every time here
);

CREATE TABLE api_keys (
    hash       BLOB PRIMARY KEY,                -- SHA-256 of the secret
    prefix     TEXT NOT NULL,
    brand_id   TEXT NOT NULL REFERENCES brands (id),
    created_at INTEGER NOT NULL,
    revoked_at INTEGER
);
CREATE INDEX api_keys_brand ON api_keys (brand_id);

-- One row: bumped with every change of brands or keys, polled by servers.
CREATE TABLE config_version (version INTEGER NOT NULL);
INSERT INTO config_version VALUES (1);

CREATE TABLE products (
    id         INTEGER PRIMARY KEY,
    brand_id   TEXT NOT NULL REFERENCES brands (id),
    product_id TEXT NOT NULL,
    sku        TEXT,
    title      TEXT,
    url        TEXT,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    UNIQUE (brand_id, product_id)
);

CREATE TABLE view_events (
    id          INTEGER PRIMARY KEY,
    event_id    TEXT NOT NULL,
    product     INTEGER NOT NULL REFERENCES products (id),
    ts          INTEGER NOT NULL,  -- when it counts
    given_ts    INTEGER,           -- the client's timestamp when it was replaced
    received_at INTEGER NOT NULL,
    session_id  TEXT,
    country     TEXT,
    locale      TEXT,
    keyed       INTEGER NOT NULL
);
CREATE INDEX view_events_ts ON view_events (ts);

CREATE TABLE purchase_events (
    id          INTEGER PRIMARY KEY,
    event_id    TEXT NOT NULL,
    brand_id    TEXT NOT NULL REFERENCES brands (id),
    order_id    TEXT NOT NULL,
    ts          INTEGER NOT NULL,
    given_ts    INTEGER,
    received_at INTEGER NOT NULL,
    session_id  TEXT,
    currency    TEXT,
    total_value REAL,
    keyed       INTEGER NOT NULL,
    UNIQUE (brand_id, order_id)
);
CREATE INDEX purchase_events_ts ON purchase_events (ts);

CREATE TABLE purchase_items (
    purchase   INTEGER NOT NULL REFERENCES purchase_events (id) ON DELETE CASCADE,
    line       INTEGER NOT NULL,
    product    INTEGER NOT NULL REFERENCES products (id),
    sku        TEXT,
    title      TEXT,
    quantity   INTEGER NOT NULL,
    unit_price REAL,
    PRIMARY KEY (purchase, line)
) WITHOUT ROWID;

-- A key is scoped to the brand, the endpoint and the sender (keyed or not),
-- and remembers a hash of the body it came with.
CREATE TABLE idempotency_keys (
    brand_id   TEXT NOT NULL,
    scope      TEXT NOT NULL,               -- "view" or "purchase", ":keyed" or ":anonymous"
    key        TEXT NOT NULL,
    body_hash  BLOB NOT NULL,
    created_at INTEGER NOT NULL,
    status     TEXT NOT NULL,
    event_id   TEXT NOT NULL,
    PRIMARY KEY (brand_id, scope, key)
) WITHOUT ROWID;
CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at);

-- +goose Down
DROP TABLE idempotency_keys;
DROP TABLE purchase_items;
DROP TABLE purchase_events;
DROP TABLE view_events;
DROP TABLE products;
DROP TABLE config_version;
DROP TABLE api_keys;
DROP TABLE brands;
