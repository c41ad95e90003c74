-- +goose Up
-- The maker's identifiers of a product, the latest an event gave: the GTIN
-- as GTIN-14, the part number and the maker's name. Matching finds one
-- product across shops by them before it compares titles.
ALTER TABLE products ADD COLUMN gtin TEXT;
ALTER TABLE products ADD COLUMN mpn TEXT;
ALTER TABLE products ADD COLUMN maker TEXT;

-- +goose Down
ALTER TABLE products DROP COLUMN maker;
ALTER TABLE products DROP COLUMN mpn;
ALTER TABLE products DROP COLUMN gtin;
