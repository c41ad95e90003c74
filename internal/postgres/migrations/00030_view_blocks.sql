-- +goose Up
-- Views in blocks (docs/decisions.md, Views in blocks), as SQLite's
-- 00030: a row per commit group, its views encoded by internal/viewblock,
-- instead of a row and three index entries per view. id is the first
-- view id of the block and last its greatest; ids come from view_events'
-- sequence, so that they follow the rows', and a rewrite keeps them.
-- txid is the transaction that wrote the views, as on every event row:
-- the change feed hands a block to other nodes when its transaction is
-- new to their cursor, and a rewrite (an erasure, expiry, a merge of
-- products) keeps it, so that nobody is handed the block twice.
-- The rows of view_events are moved into blocks by the first start of
-- this version (moveViewRows in internal/postgres), under an advisory
-- lock, a batch per transaction, so that a start that stops resumes;
-- the table then stays empty.
CREATE TABLE view_blocks (
    id     bigint PRIMARY KEY,
    last   bigint NOT NULL,
    min_ts bigint NOT NULL,  -- the times of its views: retention, replay, a rollups build
    max_ts bigint NOT NULL,
    n      integer NOT NULL, -- views
    data   bytea NOT NULL,
    txid   xid8 NOT NULL DEFAULT pg_current_xact_id()
);
CREATE INDEX view_blocks_min_ts ON view_blocks (min_ts);
CREATE INDEX view_blocks_max_ts ON view_blocks (max_ts);
CREATE INDEX view_blocks_txid ON view_blocks (txid);

-- +goose Down
-- Views still in blocks are lost: a binary of the version before cannot
-- read them. Restore a backup of that version instead (docs/operations.md).
DROP TABLE view_blocks;
