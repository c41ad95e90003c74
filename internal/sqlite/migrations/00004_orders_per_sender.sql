-- +goose NO TRANSACTION
-- +goose Up
-- A brand's keyed orders and anonymous ones are apart (svc.Decide): an
-- anonymous purchase must not squat the id of a real order. SQLite cannot
-- change a table's UNIQUE constraint, so the table is copied (the steps of
-- https://www.sqlite.org/lang_altertable.html#otheralter), with the ids the
-- event log's positions are made of. Foreign keys are off meanwhile, or
-- dropping the old table would delete every order's lines.
PRAGMA foreign_keys = OFF;
BEGIN IMMEDIATE;
CREATE TABLE purchase_events_new (
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
    UNIQUE (brand_id, order_id, keyed)
);
INSERT INTO purchase_events_new
    SELECT id, event_id, brand_id, order_id, ts, given_ts, received_at, session_id, currency, total_value, keyed
    FROM purchase_events;
DROP TABLE purchase_events;
ALTER TABLE purchase_events_new RENAME TO purchase_events;
CREATE INDEX purchase_events_ts ON purchase_events (ts);
COMMIT;
PRAGMA foreign_keys = ON;

-- +goose Down
PRAGMA foreign_keys = OFF;
BEGIN IMMEDIATE;
CREATE TABLE purchase_events_old (
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
INSERT INTO purchase_events_old
    SELECT id, event_id, brand_id, order_id, ts, given_ts, received_at, session_id, currency, total_value, keyed
    FROM purchase_events;
DROP TABLE purchase_events;
ALTER TABLE purchase_events_old RENAME TO purchase_events;
CREATE INDEX purchase_events_ts ON purchase_events (ts);
COMMIT;
PRAGMA foreign_keys = ON;
