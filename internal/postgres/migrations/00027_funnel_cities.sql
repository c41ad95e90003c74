-- +goose Up
-- The dashboard's funnel, cities and toast impressions (docs/dashboard.md).

-- Each session's add-to-carts, kept on the write path as its orders are
-- (rollup.SessionOrders). Filled here from the carts stored.
ALTER TABLE rollup_sessions ADD COLUMN carts bigint NOT NULL DEFAULT 0;
UPDATE rollup_sessions SET carts = c.n FROM (
        SELECT p.brand_id, c.session_id, count(*) AS n FROM cart_events c JOIN products p ON p.id = c.product
        WHERE c.session_id IS NOT NULL AND c.session_id <> '' GROUP BY p.brand_id, c.session_id) c
WHERE rollup_sessions.brand_id = c.brand_id AND rollup_sessions.session_id = c.session_id;

-- The funnel per brand and UTC day of the sessions' first view: sessions,
-- those that carted and those that bought, kept by a trigger on
-- rollup_sessions, so that a page adds up days rather than counting a
-- million sessions.
CREATE TABLE rollup_funnel (
    brand_id text NOT NULL,
    day      bigint NOT NULL,                -- unix ms of the UTC day's start
    sessions bigint NOT NULL DEFAULT 0,
    carted   bigint NOT NULL DEFAULT 0,
    bought   bigint NOT NULL DEFAULT 0,
    PRIMARY KEY (brand_id, day)
);
INSERT INTO rollup_funnel SELECT brand_id, first_at - first_at % 86400000, count(*),
        count(*) FILTER (WHERE carts > 0), count(*) FILTER (WHERE orders > 0)
    FROM rollup_sessions GROUP BY 1, 2;
-- +goose StatementBegin
CREATE FUNCTION rollup_funnel_count() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP <> 'INSERT' THEN
        UPDATE rollup_funnel SET sessions = sessions - 1, carted = carted - (OLD.carts > 0)::int, bought = bought - (OLD.orders > 0)::int
            WHERE brand_id = OLD.brand_id AND day = OLD.first_at - OLD.first_at % 86400000;
    END IF;
    IF TG_OP <> 'DELETE' THEN
        INSERT INTO rollup_funnel VALUES (NEW.brand_id, NEW.first_at - NEW.first_at % 86400000, 1, (NEW.carts > 0)::int, (NEW.orders > 0)::int)
            ON CONFLICT (brand_id, day) DO UPDATE SET sessions = rollup_funnel.sessions + 1,
                carted = rollup_funnel.carted + excluded.carted, bought = rollup_funnel.bought + excluded.bought;
    END IF;
    RETURN NULL;
END
$$;
-- +goose StatementEnd
CREATE TRIGGER rollup_funnel_in_out AFTER INSERT OR DELETE ON rollup_sessions
    FOR EACH ROW EXECUTE FUNCTION rollup_funnel_count();
CREATE TRIGGER rollup_funnel_move AFTER UPDATE OF first_at, carts, orders ON rollup_sessions
    FOR EACH ROW WHEN (OLD.first_at - OLD.first_at % 86400000 <> NEW.first_at - NEW.first_at % 86400000
        OR (OLD.carts > 0) <> (NEW.carts > 0) OR (OLD.orders > 0) <> (NEW.orders > 0))
    EXECUTE FUNCTION rollup_funnel_count();

-- Orders per brand, city and UTC day, of the orders that give a city
-- (keyed orders' shipping city): the cities table, shown with the recent
-- feed's k. Filled here from the orders stored with a line left.
CREATE TABLE rollup_cities (
    brand_id  text NOT NULL,
    country   text NOT NULL,                 -- '' without one
    city      text NOT NULL,
    day       bigint NOT NULL,               -- unix ms of the UTC day's start
    purchases bigint NOT NULL DEFAULT 0,
    PRIMARY KEY (brand_id, day, country, city)
);
INSERT INTO rollup_cities SELECT brand_id, coalesce(country, ''), city, ts - ts % 86400000, count(*) FROM purchase_events e
    WHERE e.keyed AND city IS NOT NULL AND city <> '' AND EXISTS (SELECT 1 FROM purchase_items i WHERE i.purchase = e.id AND i.quantity > 0)
    GROUP BY 1, 2, 3, 4;

-- Toasts shown, as svc-corner.js reports them (kind toast_seen).
ALTER TABLE widget_hours ADD COLUMN toast_impressions bigint NOT NULL DEFAULT 0;

-- The brand's accent colour for the widget, #rrggbb; '' keeps svc's
-- (svc.WidgetSettings.Accent).
ALTER TABLE brands ADD COLUMN widget_accent text NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE brands DROP COLUMN widget_accent;
ALTER TABLE widget_hours DROP COLUMN toast_impressions;
DROP TABLE rollup_cities;
DROP TABLE rollup_funnel;
DROP FUNCTION rollup_funnel_count CASCADE;
ALTER TABLE rollup_sessions DROP COLUMN carts;
