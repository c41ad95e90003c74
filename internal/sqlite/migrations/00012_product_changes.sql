-- +goose Up
-- When a product was last registered or changed, as a number that grows
-- with each such write (writers take turns): the change feed hands a
-- server the products another process wrote after the last it saw. Rows
-- from before this column are older than any server's first read.
ALTER TABLE products ADD COLUMN changed INTEGER NOT NULL DEFAULT 0;
CREATE INDEX products_changed ON products (changed);

-- +goose Down
DROP INDEX products_changed;
ALTER TABLE products DROP COLUMN changed;
