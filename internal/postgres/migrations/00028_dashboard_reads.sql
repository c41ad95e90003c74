-- +goose Up
-- The sessions that bought, as the lift reads them (rollup.ArmSessions),
-- from the index alone: the same plan as SQLite's (its migration 00028).
DROP INDEX rollup_sessions_bought;
CREATE INDEX rollup_sessions_bought ON rollup_sessions (brand_id, orders) INCLUDE (session_id, arm, revenue) WHERE orders > 0;
-- A brand's latest orders, from which its currency is read
-- (sqlstore.BrandCurrency), rather than all of them.
CREATE INDEX purchase_events_brand_ts ON purchase_events (brand_id, ts);

-- +goose Down
DROP INDEX purchase_events_brand_ts;
DROP INDEX rollup_sessions_bought;
CREATE INDEX rollup_sessions_bought ON rollup_sessions (brand_id, session_id) WHERE orders > 0;
