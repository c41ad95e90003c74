-- +goose Up
-- Views in blocks (docs/storage.md, Views in blocks): one row per commit
-- group, its views encoded by internal/viewblock. The rows of view_events
-- are moved into blocks by the first start of this version
-- (viewblocks.go, migrateViewRows), with txid 0, which the change feed
-- never reads again; the table is dropped once empty.
CREATE TABLE view_blocks (
    id     bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    min_ts bigint NOT NULL,  -- its oldest view's time
    max_ts bigint NOT NULL,  -- its newest view's time
    n      integer NOT NULL, -- its views
    data   bytea NOT NULL,
    txid   xid8 NOT NULL DEFAULT pg_current_xact_id()
);
CREATE INDEX view_blocks_ts ON view_blocks (min_ts, max_ts);
CREATE INDEX view_blocks_txid ON view_blocks (txid);

-- +goose Down
DROP TABLE view_blocks;
