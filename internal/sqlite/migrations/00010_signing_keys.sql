-- +goose Up
-- The Ed25519 keys that sign answers (svc.SigningKey): the 32-byte seed is
-- the private key. At most one key is current (expires_at NULL), which the
-- partial unique index makes sure of even when two servers start at once.
CREATE TABLE signing_keys (
    kid        TEXT PRIMARY KEY,
    seed       BLOB NOT NULL,
    created_at INTEGER NOT NULL,
    expires_at INTEGER
);
CREATE UNIQUE INDEX signing_keys_one_current ON signing_keys ((expires_at IS NULL)) WHERE expires_at IS NULL;

-- +goose Down
DROP TABLE signing_keys;
