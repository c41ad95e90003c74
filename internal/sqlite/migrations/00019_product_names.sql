-- +goose Up
-- A product's names (svc names.go, docs/decisions.md): other ids a brand's
-- systems give the product, registered by keyed events. A name is one
-- product's of a brand; the first registration keeps it. Registering one
-- bumps the product's changed, so that the change feed hands it on.
CREATE TABLE product_names (
    brand_id   TEXT NOT NULL,
    name       TEXT NOT NULL,
    product_id TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (brand_id, name)
) WITHOUT ROWID;
CREATE INDEX product_names_product ON product_names (brand_id, product_id);

-- +goose Down
DROP TABLE product_names;
