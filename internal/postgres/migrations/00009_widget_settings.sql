-- +goose Up
-- The widget's corner ('' is 'start') and languages ('' is all of them,
-- else codes separated by commas, the first the fallback).
ALTER TABLE brands ADD COLUMN widget_position text NOT NULL DEFAULT '';
ALTER TABLE brands ADD COLUMN languages text NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE brands DROP COLUMN languages;
ALTER TABLE brands DROP COLUMN widget_position;
