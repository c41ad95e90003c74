-- +goose Up
-- Views in blocks (docs/decisions.md, Views in blocks): a row per commit
-- group, its views encoded by internal/viewblock, instead of a row and an
-- index entry per view. id is the first view id of the block's range and
-- last its end, which a rewrite keeps: each view keeps its own id.
-- The rows of view_events are moved into blocks by the first start of
-- this version (moveViewRows in internal/sqlite), a batch per transaction,
-- so that a start that stops resumes; the table then stays empty.
CREATE TABLE view_blocks (
    id     INTEGER PRIMARY KEY,
    last   INTEGER NOT NULL,
    min_ts INTEGER NOT NULL,  -- the times of its views: retention, replay, a rollups build
    max_ts INTEGER NOT NULL,
    n      INTEGER NOT NULL,  -- views
    data   BLOB NOT NULL
);
CREATE INDEX view_blocks_min_ts ON view_blocks (min_ts);
CREATE INDEX view_blocks_max_ts ON view_blocks (max_ts);

-- +goose Down
-- Views still in blocks are lost: a binary of the version before cannot
-- read them. Restore a backup of that version instead.
DROP TABLE view_blocks;
