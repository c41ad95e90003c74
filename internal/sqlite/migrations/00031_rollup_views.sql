-- +goose Up
-- Rollups behind the commit (docs/decisions.md): a transaction of views
-- alone stores their block and leaves their rollups to a later write
-- transaction, which applies every block above through and moves it on.
-- The version before applied them at commit: every view stored so far,
-- in blocks or in rows still to be moved, is counted.
CREATE TABLE rollup_views (
    through INTEGER NOT NULL  -- the last view id the rollups count
);
INSERT INTO rollup_views (through) SELECT max(
    coalesce((SELECT max(last) FROM view_blocks), 0),
    coalesce((SELECT max(id) FROM view_events), 0));

-- +goose Down
-- The version before applies views' rollups at commit: apply the waiting
-- ones (start and stop this version) before going down.
DROP TABLE rollup_views;
