-- +goose Up
-- The dashboard's aggregates (internal/rollup, docs/dashboard.md): kept
-- in the transaction that writes, cancels, erases or expires the events.
-- One row per brand, product and hour; product 0 is the whole brand.
CREATE TABLE rollup_hours (
    brand_id     TEXT NOT NULL,
    product      INTEGER NOT NULL,
    hour         INTEGER NOT NULL,          -- unix ms of the hour's start
    views        INTEGER NOT NULL DEFAULT 0,
    carts        INTEGER NOT NULL DEFAULT 0,
    purchases    INTEGER NOT NULL DEFAULT 0, -- orders
    units        INTEGER NOT NULL DEFAULT 0,
    priced_units INTEGER NOT NULL DEFAULT 0,
    revenue      TEXT NOT NULL DEFAULT '0',  -- millionths of the currency unit, a decimal integer
    last_at      INTEGER NOT NULL DEFAULT 0,
    viewers      BLOB,                       -- HyperLogLog sketch of the session ids
    PRIMARY KEY (brand_id, product, hour)
) WITHOUT ROWID;
CREATE INDEX rollup_hours_hour ON rollup_hours (hour);

CREATE TABLE rollup_countries (
    brand_id  TEXT NOT NULL,
    country   TEXT NOT NULL,                 -- '' without one
    day       INTEGER NOT NULL,              -- unix ms of the UTC day's start
    views     INTEGER NOT NULL DEFAULT 0,
    purchases INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (brand_id, day, country)
) WITHOUT ROWID;

-- The arm of each session's first view, for the holdout experiment.
CREATE TABLE rollup_sessions (
    brand_id   TEXT NOT NULL,
    session_id TEXT NOT NULL,
    arm        TEXT NOT NULL,
    first_at   INTEGER NOT NULL,
    last_at    INTEGER NOT NULL,
    PRIMARY KEY (brand_id, session_id)
) WITHOUT ROWID;
CREATE INDEX rollup_sessions_last ON rollup_sessions (last_at);

-- The sessions per arm, kept by triggers: counting a brand's million
-- sessions for each page would take a second.
CREATE TABLE rollup_arms (
    brand_id TEXT NOT NULL,
    arm      TEXT NOT NULL,
    sessions INTEGER NOT NULL,
    PRIMARY KEY (brand_id, arm)
) WITHOUT ROWID;
-- +goose StatementBegin
CREATE TRIGGER rollup_sessions_in AFTER INSERT ON rollup_sessions BEGIN
    INSERT INTO rollup_arms VALUES (NEW.brand_id, NEW.arm, 1) ON CONFLICT DO UPDATE SET sessions = sessions + 1;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER rollup_sessions_out AFTER DELETE ON rollup_sessions BEGIN
    UPDATE rollup_arms SET sessions = sessions - 1 WHERE brand_id = OLD.brand_id AND arm = OLD.arm;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER rollup_sessions_arm AFTER UPDATE OF arm ON rollup_sessions WHEN OLD.arm != NEW.arm BEGIN
    UPDATE rollup_arms SET sessions = sessions - 1 WHERE brand_id = OLD.brand_id AND arm = OLD.arm;
    INSERT INTO rollup_arms VALUES (NEW.brand_id, NEW.arm, 1) ON CONFLICT DO UPDATE SET sessions = sessions + 1;
END;
-- +goose StatementEnd

-- Whether the rollups hold every stored event: built_until is the end of
-- the days built from the events when this version first started (a
-- build that stops resumes there); done is 1 once they are all built.
CREATE TABLE rollup_build (built_until INTEGER NOT NULL, done INTEGER NOT NULL);
INSERT INTO rollup_build VALUES (0, 0);

-- +goose Down
DROP TABLE rollup_build;
DROP TABLE rollup_arms;
DROP TABLE rollup_sessions;
DROP TABLE rollup_countries;
DROP TABLE rollup_hours;
