-- +goose Up
-- Settings of the whole service that every command on the store reads,
-- such as the public URL that serve was given.
CREATE TABLE settings (
	name  text PRIMARY KEY,
	value text NOT NULL
);

-- +goose Down
DROP TABLE settings;
