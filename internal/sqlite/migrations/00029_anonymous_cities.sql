-- +goose Up
-- An anonymous order gives no city: anyone can send one, and a stranger's
-- text must not become a place on the dashboard or in the feed. svc.Admit
-- drops it on arrival; the orders versions before it kept lose theirs
-- here, and the store refuses one from now on, so that every read takes
-- a city as stored. A trigger rather than a CHECK: SQLite adds a CHECK
-- only by copying the table.
UPDATE purchase_events SET city = NULL WHERE NOT keyed AND city IS NOT NULL;
-- +goose StatementBegin
CREATE TRIGGER purchase_events_anonymous_city BEFORE INSERT ON purchase_events
    WHEN NOT NEW.keyed AND NEW.city IS NOT NULL
BEGIN
    SELECT RAISE(ABORT, 'an anonymous order keeps no city');
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER purchase_events_anonymous_city_update BEFORE UPDATE OF keyed, city ON purchase_events
    WHEN NOT NEW.keyed AND NEW.city IS NOT NULL
BEGIN
    SELECT RAISE(ABORT, 'an anonymous order keeps no city');
END;
-- +goose StatementEnd

-- +goose Down
DROP TRIGGER purchase_events_anonymous_city_update;
DROP TRIGGER purchase_events_anonymous_city;
