-- +goose Up
-- Rollups behind the commit (docs/decisions.md, Dashboard rollups): a
-- group commit of events stores them and leaves their rollups to a later
-- transaction, which applies every view, add-to-cart and order above
-- these ids and moves them on. The version before applied them at
-- commit: every event stored so far, views in blocks or in rows still to
-- be moved, is counted.
CREATE TABLE rollup_through (
    views  INTEGER NOT NULL,  -- the last view id the rollups count
    carts  INTEGER NOT NULL,  -- of cart_events
    orders INTEGER NOT NULL   -- of purchase_events
);
INSERT INTO rollup_through (views, carts, orders) SELECT
    max(coalesce((SELECT max(last) FROM view_blocks), 0), coalesce((SELECT max(id) FROM view_events), 0)),
    coalesce((SELECT max(id) FROM cart_events), 0),
    coalesce((SELECT max(id) FROM purchase_events), 0);

-- +goose Down
-- The version before applies events' rollups at commit: apply the
-- waiting ones (start and stop this version) before going down.
DROP TABLE rollup_through;
