-- +goose Up
-- One row: bumped whenever a shopper's events are erased, polled by servers
-- so that they recount.
CREATE TABLE erasure_version (version INTEGER NOT NULL);
INSERT INTO erasure_version VALUES (1);

-- +goose Down
DROP TABLE erasure_version;
