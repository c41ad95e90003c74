-- +goose Up
-- An order line's product is checked by no foreign key: a batch's lines
-- name products that the same transaction registered or read (append.go),
-- and no product row is ever deleted, so the check could never fail. It
-- cost a trigger and a row lock per line: 110,000 lines spent most of their
-- insert in it (docs/decisions.md, Batch collect).
ALTER TABLE purchase_items DROP CONSTRAINT purchase_items_product_fkey;

-- +goose Down
ALTER TABLE purchase_items ADD CONSTRAINT purchase_items_product_fkey FOREIGN KEY (product) REFERENCES products (id);
