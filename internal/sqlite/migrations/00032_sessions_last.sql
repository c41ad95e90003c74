-- +goose Up
-- The retention finds the sessions left without a view among those of
-- the views it expires, by key (sqlstore.DeleteExpired), not by their
-- last view: an index on last_at had each view of a known session move
-- its entry, a page written a view at random in the index.
DROP INDEX rollup_sessions_last;
-- The retention's edge: a rollups build deletes the sessions it gathered
-- whose last view is before it (expired while the build ran).
ALTER TABLE rollup_build ADD COLUMN expired_before INTEGER NOT NULL DEFAULT 0;

-- +goose Down
ALTER TABLE rollup_build DROP COLUMN expired_before;
CREATE INDEX rollup_sessions_last ON rollup_sessions (last_at);
