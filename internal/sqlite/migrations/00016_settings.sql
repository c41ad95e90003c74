-- +goose Up
-- Settings of the whole service that every command on the store reads,
-- such as the public URL that serve was given.
CREATE TABLE settings (
	name  TEXT PRIMARY KEY,
	value TEXT NOT NULL
);

-- +goose Down
DROP TABLE settings;
