-- +goose Up
-- One row that CheckWrite rewrites: a commit of a fair size, as a batch of
-- events is, so that a disk with a few free pages does not pass for one
-- that can take writes again.
CREATE TABLE write_check (payload BLOB NOT NULL);
INSERT INTO write_check VALUES (x'');

-- +goose Down
DROP TABLE write_check;
