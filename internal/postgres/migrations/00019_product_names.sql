-- +goose Up
-- A product's names (svc names.go, docs/decisions.md): other ids a brand's
-- systems give the product, registered by keyed events. A name is one
-- product's of a brand; the first registration keeps it. Registering one
-- writes the product's txid, so that the change feed hands it on.
CREATE TABLE product_names (
    brand_id   text NOT NULL,
    name       text NOT NULL,
    product_id text NOT NULL,
    created_at bigint NOT NULL,
    PRIMARY KEY (brand_id, name)
);
CREATE INDEX product_names_product ON product_names (brand_id, product_id);

-- +goose Down
DROP TABLE product_names;
