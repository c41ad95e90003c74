-- +goose Up
-- The sessions that bought, as the lift reads them (rollup.ArmSessions):
-- with only (brand_id, session_id), SQLite's planner took the primary key
-- and read every session of the brand (a second for a million). With
-- orders in the key, the index is the better plan; arm and revenue make
-- it covering.
DROP INDEX rollup_sessions_bought;
CREATE INDEX rollup_sessions_bought ON rollup_sessions (brand_id, orders, arm, revenue) WHERE orders > 0;
-- A brand's latest orders, from which its currency is read
-- (sqlstore.BrandCurrency), rather than all of them.
CREATE INDEX purchase_events_brand_ts ON purchase_events (brand_id, ts);

-- +goose Down
DROP INDEX purchase_events_brand_ts;
DROP INDEX rollup_sessions_bought;
CREATE INDEX rollup_sessions_bought ON rollup_sessions (brand_id, session_id) WHERE orders > 0;
