-- +goose Up
-- The holdout experiment: the share of a brand's sessions that never see
-- the widget, and the arm each view's session was in when it came.
ALTER TABLE brands ADD COLUMN holdout integer NOT NULL DEFAULT 0;
ALTER TABLE view_events ADD COLUMN arm text NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE view_events DROP COLUMN arm;
ALTER TABLE brands DROP COLUMN holdout;
