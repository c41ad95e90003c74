-- +goose Up
-- The attributes of a product that a keyed event set (svc.Attrs: 1 sku,
-- 2 title, 4 url, 8 gtin, 16 mpn, 32 maker); the others are provisional,
-- from anonymous events, and shown to no shopper and no other brand
-- (docs/security.md, Provenance). Which event set a stored attribute was
-- not recorded before: a product that any keyed event named keeps what it
-- has as verified, the others' attributes start provisional.
ALTER TABLE products ADD COLUMN verified INTEGER NOT NULL DEFAULT 0;
UPDATE products SET verified =
    (CASE WHEN sku IS NULL THEN 0 ELSE 1 END) | (CASE WHEN title IS NULL THEN 0 ELSE 2 END) |
    (CASE WHEN url IS NULL THEN 0 ELSE 4 END) | (CASE WHEN gtin IS NULL THEN 0 ELSE 8 END) |
    (CASE WHEN mpn IS NULL THEN 0 ELSE 16 END) | (CASE WHEN maker IS NULL THEN 0 ELSE 32 END)
WHERE id IN (SELECT product FROM view_events WHERE keyed
    UNION SELECT product FROM cart_events WHERE keyed
    UNION SELECT i.product FROM purchase_items i JOIN purchase_events e ON e.id = i.purchase WHERE e.keyed);

-- +goose Down
ALTER TABLE products DROP COLUMN verified;
