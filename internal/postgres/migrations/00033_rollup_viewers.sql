-- +goose Up
-- The sessions an append's views add to their hour rows' sketches, until
-- a fold adds them (docs/decisions.md, Viewers folded in): a row of a few
-- dozen bytes a view, for its product's hour and its brand's, not a sketch
-- of up to 16 KiB written again each transaction. The key's index serves the fold and the sketches made
-- again from the events (an erasure, the retention).
CREATE TABLE rollup_viewers (
    brand_id   text NOT NULL,
    product    bigint NOT NULL,
    hour       bigint NOT NULL,
    session_id text NOT NULL
);
CREATE INDEX rollup_viewers_key ON rollup_viewers (brand_id, product, hour);

-- +goose Down
DROP TABLE rollup_viewers;
