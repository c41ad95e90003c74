-- +goose Up
-- The holdout experiment: the share of a brand's sessions that never see
-- the widget, and the arm each view's session was in when it came.
ALTER TABLE brands ADD COLUMN holdout INTEGER NOT NULL DEFAULT 0;
-- The widget's parts the brand chose; '' leaves the script's default.
ALTER TABLE brands ADD COLUMN widget_variant TEXT NOT NULL DEFAULT '';
ALTER TABLE view_events ADD COLUMN arm TEXT NOT NULL DEFAULT '';
ALTER TABLE cart_events ADD COLUMN arm TEXT NOT NULL DEFAULT '';

-- Dashboard sign-in links and sessions, by the SHA-256 of their secret;
-- brand_id '' is the operator's.
CREATE TABLE dashboard_links (
    hash       BLOB PRIMARY KEY,
    brand_id   TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL,
    used_at    INTEGER
);
CREATE TABLE dashboard_sessions (
    hash       BLOB PRIMARY KEY,
    brand_id   TEXT NOT NULL,
    csrf       TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL
);

-- +goose Down
DROP TABLE dashboard_sessions;
DROP TABLE dashboard_links;
ALTER TABLE cart_events DROP COLUMN arm;
ALTER TABLE view_events DROP COLUMN arm;
ALTER TABLE brands DROP COLUMN widget_variant;
ALTER TABLE brands DROP COLUMN holdout;
