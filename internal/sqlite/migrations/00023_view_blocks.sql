-- +goose Up
-- Views in blocks (docs/storage.md, Views in blocks): one row per commit
-- group, its views encoded by internal/viewblock. A view's position in the
-- event log is kept in the block; a block's id is the position of its
-- last view when written, so that positions go on from view_events' ids.
-- The rows of view_events are moved into blocks by the first start of this
-- version (viewblocks.go, migrateViewRows), which then drops the table.
CREATE TABLE view_blocks (
    id     INTEGER PRIMARY KEY,
    min_ts INTEGER NOT NULL,  -- its oldest view's time
    max_ts INTEGER NOT NULL,  -- its newest view's time
    n      INTEGER NOT NULL,  -- its views
    data   BLOB NOT NULL
);
CREATE INDEX view_blocks_ts ON view_blocks (min_ts, max_ts);

-- The largest block id whose views the rollups hold (viewrollups.go):
-- views are added to the rollups after their commit, many blocks at once.
CREATE TABLE view_rollups (folded INTEGER NOT NULL);
INSERT INTO view_rollups VALUES (0);

-- +goose Down
DROP TABLE view_rollups;
DROP TABLE view_blocks;
