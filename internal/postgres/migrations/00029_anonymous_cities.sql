-- +goose Up
-- An anonymous order gives no city: anyone can send one, and a stranger's
-- text must not become a place on the dashboard or in the feed. svc.Admit
-- drops it on arrival; the orders versions before it kept lose theirs
-- here, and the constraint refuses one from now on, so that every read
-- takes a city as stored.
UPDATE purchase_events SET city = NULL WHERE NOT keyed AND city IS NOT NULL;
ALTER TABLE purchase_events ADD CONSTRAINT purchase_events_anonymous_city CHECK (keyed OR city IS NULL);

-- +goose Down
ALTER TABLE purchase_events DROP CONSTRAINT purchase_events_anonymous_city;
