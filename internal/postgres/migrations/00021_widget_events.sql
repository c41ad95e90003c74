-- +goose Up
-- The widget's impressions and clicks, as svc.js reports them
-- (docs/dashboard.md, The widget's effect). Anonymous reports: they
-- never touch the counts a shopper sees, only these tables.
-- Per brand and hour: what was reported and counted.
CREATE TABLE widget_hours (
    brand_id      text NOT NULL,
    hour          bigint NOT NULL,           -- unix ms of the hour's start
    impressions   bigint NOT NULL DEFAULT 0,
    widget_clicks bigint NOT NULL DEFAULT 0,
    toast_clicks  bigint NOT NULL DEFAULT 0,
    PRIMARY KEY (brand_id, hour)
);
CREATE INDEX widget_hours_hour ON widget_hours (hour);

-- Per brand and session that saw the widget: what it reported, each
-- kind capped (rollup.WidgetCap), so that one session cannot inflate
-- the counts. Only sessions that sent a view and are not held out.
CREATE TABLE widget_sessions (
    brand_id    text NOT NULL,
    session_id  text NOT NULL,
    first_at    bigint NOT NULL,
    last_at     bigint NOT NULL,
    impressions bigint NOT NULL DEFAULT 0,
    clicks      bigint NOT NULL DEFAULT 0,
    PRIMARY KEY (brand_id, session_id)
);
CREATE INDEX widget_sessions_last ON widget_sessions (last_at);

-- The sessions that saw the widget, per brand, kept by triggers.
CREATE TABLE widget_seen (
    brand_id text PRIMARY KEY,
    sessions bigint NOT NULL
);
-- +goose StatementBegin
CREATE FUNCTION widget_seen_count() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        UPDATE widget_seen SET sessions = sessions - 1 WHERE brand_id = OLD.brand_id;
    ELSE
        INSERT INTO widget_seen VALUES (NEW.brand_id, 1)
            ON CONFLICT (brand_id) DO UPDATE SET sessions = widget_seen.sessions + 1;
    END IF;
    RETURN NULL;
END
$$;
-- +goose StatementEnd
CREATE TRIGGER widget_sessions_in_out AFTER INSERT OR DELETE ON widget_sessions
    FOR EACH ROW EXECUTE FUNCTION widget_seen_count();

-- The orders of each session with an arm, and their value, kept on the
-- write path (rollup.SessionOrders): the lift reads the sessions that
-- bought instead of joining every order with every session. Filled here
-- from the orders stored.
ALTER TABLE rollup_sessions ADD COLUMN orders bigint NOT NULL DEFAULT 0;
ALTER TABLE rollup_sessions ADD COLUMN revenue double precision NOT NULL DEFAULT 0;
UPDATE rollup_sessions SET orders = o.n, revenue = o.v FROM (SELECT brand_id, session_id, count(*) AS n, sum(value) AS v FROM (
        SELECT e.brand_id, e.session_id,
            CASE WHEN count(i.unit_price) < count(*) AND e.total_value IS NOT NULL THEN e.total_value
                ELSE coalesce(sum(i.quantity * i.unit_price), 0) END AS value
        FROM purchase_events e JOIN purchase_items i ON i.purchase = e.id AND i.quantity > 0
        WHERE e.session_id IS NOT NULL AND e.session_id <> '' GROUP BY e.id, e.brand_id, e.session_id, e.total_value) ov
    GROUP BY brand_id, session_id) o
WHERE rollup_sessions.brand_id = o.brand_id AND rollup_sessions.session_id = o.session_id;
CREATE INDEX rollup_sessions_bought ON rollup_sessions (brand_id, session_id) WHERE orders > 0;

-- +goose Down
DROP INDEX rollup_sessions_bought;
ALTER TABLE rollup_sessions DROP COLUMN revenue;
ALTER TABLE rollup_sessions DROP COLUMN orders;
DROP TABLE widget_seen;
DROP FUNCTION widget_seen_count CASCADE;
DROP TABLE widget_sessions;
DROP TABLE widget_hours;
