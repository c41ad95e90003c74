-- +goose Up
-- The schema of the embedded store, in PostgreSQL's types. Times are unix
-- milliseconds, as there, so that both stores count the same instants.
-- txid is the transaction that wrote a row: the change feed hands other
-- nodes exactly the rows committed after their last look (see feed.go).
CREATE TABLE brands (
    id             text PRIMARY KEY,
    name           text NOT NULL,
    domains        text[] NOT NULL DEFAULT '{}',
    require_key    boolean NOT NULL DEFAULT false,
    closed_catalog boolean NOT NULL DEFAULT false,
    min_viewers    integer NOT NULL DEFAULT 3,
    min_purchases  integer NOT NULL DEFAULT 1,
    created_at     bigint NOT NULL
);

CREATE TABLE api_keys (
    hash       bytea PRIMARY KEY,             -- SHA-256 of the secret
    prefix     text NOT NULL,
    brand_id   text NOT NULL REFERENCES brands (id),
    created_at bigint NOT NULL,
    revoked_at bigint
);
CREATE INDEX api_keys_brand ON api_keys (brand_id);

-- One row each: bumped with every change of brands or keys, and with every
-- erasure; polled by servers.
CREATE TABLE config_version (version bigint NOT NULL);
INSERT INTO config_version VALUES (1);
CREATE TABLE erasure_version (version bigint NOT NULL);
INSERT INTO erasure_version VALUES (1);

CREATE TABLE products (
    id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    brand_id   text NOT NULL REFERENCES brands (id),
    product_id text NOT NULL,
    sku        text,
    title      text,
    url        text,
    created_at bigint NOT NULL,
    updated_at bigint NOT NULL,
    txid       xid8 NOT NULL DEFAULT pg_current_xact_id(),
    UNIQUE (brand_id, product_id)
);
CREATE INDEX products_txid ON products (txid);

CREATE TABLE view_events (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    event_id    text NOT NULL,
    product     bigint NOT NULL REFERENCES products (id),
    ts          bigint NOT NULL,  -- when it counts
    given_ts    bigint,           -- the client's timestamp when it was replaced
    received_at bigint NOT NULL,
    session_id  text,
    country     text,
    locale      text,
    keyed       boolean NOT NULL,
    txid        xid8 NOT NULL DEFAULT pg_current_xact_id()
);
CREATE INDEX view_events_ts ON view_events (ts);
CREATE INDEX view_events_txid ON view_events (txid);

CREATE TABLE purchase_events (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    event_id    text NOT NULL,
    brand_id    text NOT NULL REFERENCES brands (id),
    order_id    text NOT NULL,
    ts          bigint NOT NULL,
    given_ts    bigint,
    received_at bigint NOT NULL,
    session_id  text,
    currency    text,
    total_value double precision,
    keyed       boolean NOT NULL,
    txid        xid8 NOT NULL DEFAULT pg_current_xact_id(),
    UNIQUE (brand_id, order_id)       -- what makes an order count once across nodes
);
CREATE INDEX purchase_events_ts ON purchase_events (ts);
CREATE INDEX purchase_events_txid ON purchase_events (txid);

CREATE TABLE purchase_items (
    purchase   bigint NOT NULL REFERENCES purchase_events (id) ON DELETE CASCADE,
    line       integer NOT NULL,
    product    bigint NOT NULL REFERENCES products (id),
    sku        text,
    title      text,
    quantity   bigint NOT NULL,
    unit_price double precision,
    PRIMARY KEY (purchase, line)
);

-- A key is scoped to the brand, the endpoint and the sender (keyed or not),
-- and remembers a hash of the body it came with. Its primary key is what
-- makes a key replayed on two nodes at once count once.
CREATE TABLE idempotency_keys (
    brand_id   text NOT NULL,
    scope      text NOT NULL,
    key        text NOT NULL,
    body_hash  bytea NOT NULL,
    created_at bigint NOT NULL,
    status     text NOT NULL,
    event_id   text NOT NULL,
    PRIMARY KEY (brand_id, scope, key)
);
CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at);

-- +goose Down
DROP TABLE idempotency_keys;
DROP TABLE purchase_items;
DROP TABLE purchase_events;
DROP TABLE view_events;
DROP TABLE products;
DROP TABLE erasure_version;
DROP TABLE config_version;
DROP TABLE api_keys;
DROP TABLE brands;
