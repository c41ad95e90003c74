-- +goose Up
-- The maker's identifiers of a product, the latest an event gave: the GTIN
-- as GTIN-14, the part number and the maker's name. Matching finds one
-- product across shops by them before it compares titles.
ALTER TABLE products ADD COLUMN gtin text, ADD COLUMN mpn text, ADD COLUMN maker text;

-- +goose Down
ALTER TABLE products DROP COLUMN gtin, DROP COLUMN mpn, DROP COLUMN maker;
