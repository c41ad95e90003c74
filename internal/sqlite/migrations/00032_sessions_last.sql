-- +goose Up
-- The retention finds the sessions left without a view among those of
-- the views it expires, by key (sqlstore.DeleteExpired), not by their
-- last view: an index on last_at had each view of a known session move
-- its entry, a page written a view at random in the index.
DROP INDEX rollup_sessions_last;

-- +goose Down
CREATE INDEX rollup_sessions_last ON rollup_sessions (last_at);
