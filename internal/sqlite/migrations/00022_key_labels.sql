-- +goose Up
-- An API key's label, as its owner wrote it, and when it was last used:
-- written by each server at most once a minute per key (svc.KeyUseFlush),
-- never per request.
ALTER TABLE api_keys ADD COLUMN label TEXT NOT NULL DEFAULT '';
ALTER TABLE api_keys ADD COLUMN last_used_at INTEGER;

-- +goose Down
ALTER TABLE api_keys DROP COLUMN last_used_at;
ALTER TABLE api_keys DROP COLUMN label;
