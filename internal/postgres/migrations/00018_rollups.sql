-- +goose Up
-- The dashboard's aggregates (internal/rollup, docs/dashboard.md): kept
-- in the transaction that writes, cancels, erases or expires the events.
-- One row per brand, product and hour; product 0 is the whole brand.
CREATE TABLE rollup_hours (
    brand_id     text NOT NULL,
    product      bigint NOT NULL,
    hour         bigint NOT NULL,           -- unix ms of the hour's start
    views        bigint NOT NULL DEFAULT 0,
    carts        bigint NOT NULL DEFAULT 0,
    purchases    bigint NOT NULL DEFAULT 0, -- orders
    units        bigint NOT NULL DEFAULT 0,
    priced_units bigint NOT NULL DEFAULT 0,
    revenue      numeric NOT NULL DEFAULT 0, -- millionths of the currency unit, exact
    last_at      bigint NOT NULL DEFAULT 0,
    viewers      bytea,                      -- HyperLogLog sketch of the session ids
    PRIMARY KEY (brand_id, product, hour)
);
CREATE INDEX rollup_hours_hour ON rollup_hours (hour);

CREATE TABLE rollup_countries (
    brand_id  text NOT NULL,
    country   text NOT NULL,                 -- '' without one
    day       bigint NOT NULL,               -- unix ms of the UTC day's start
    views     bigint NOT NULL DEFAULT 0,
    purchases bigint NOT NULL DEFAULT 0,
    PRIMARY KEY (brand_id, day, country)
);

-- The arm of each session's first view, for the holdout experiment.
CREATE TABLE rollup_sessions (
    brand_id   text NOT NULL,
    session_id text NOT NULL,
    arm        text NOT NULL,
    first_at   bigint NOT NULL,
    last_at    bigint NOT NULL,
    PRIMARY KEY (brand_id, session_id)
);
CREATE INDEX rollup_sessions_last ON rollup_sessions (last_at);

-- The sessions per arm, kept by triggers: counting a brand's million
-- sessions for each page would take a second.
CREATE TABLE rollup_arms (
    brand_id text NOT NULL,
    arm      text NOT NULL,
    sessions bigint NOT NULL,
    PRIMARY KEY (brand_id, arm)
);
-- +goose StatementBegin
CREATE FUNCTION rollup_arms_count() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP <> 'INSERT' THEN
        UPDATE rollup_arms SET sessions = sessions - 1 WHERE brand_id = OLD.brand_id AND arm = OLD.arm;
    END IF;
    IF TG_OP <> 'DELETE' THEN
        INSERT INTO rollup_arms VALUES (NEW.brand_id, NEW.arm, 1)
            ON CONFLICT (brand_id, arm) DO UPDATE SET sessions = rollup_arms.sessions + 1;
    END IF;
    RETURN NULL;
END
$$;
-- +goose StatementEnd
CREATE TRIGGER rollup_sessions_in_out AFTER INSERT OR DELETE ON rollup_sessions
    FOR EACH ROW EXECUTE FUNCTION rollup_arms_count();
CREATE TRIGGER rollup_sessions_arm AFTER UPDATE OF arm ON rollup_sessions
    FOR EACH ROW WHEN (OLD.arm <> NEW.arm) EXECUTE FUNCTION rollup_arms_count();

-- Whether the rollups hold every stored event: built_until is the end of
-- the days built from the events when this version first started (a
-- build that stops resumes there); done once they are all built.
CREATE TABLE rollup_build (built_until bigint NOT NULL, done boolean NOT NULL);
INSERT INTO rollup_build VALUES (0, false);

-- +goose Down
DROP TABLE rollup_build;
DROP TABLE rollup_arms;
DROP FUNCTION rollup_arms_count CASCADE;
DROP TABLE rollup_sessions;
DROP TABLE rollup_countries;
DROP TABLE rollup_hours;
