-- +goose Up
-- The widget's font ('' is svc's, 'inherit' the page's) and the carts
-- line's honesty threshold (svc.WidgetSettings).
ALTER TABLE brands ADD COLUMN widget_font TEXT NOT NULL DEFAULT '';
ALTER TABLE brands ADD COLUMN min_carts INTEGER NOT NULL DEFAULT 3;

-- +goose Down
ALTER TABLE brands DROP COLUMN min_carts;
ALTER TABLE brands DROP COLUMN widget_font;
