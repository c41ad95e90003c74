-- +goose Up
-- The digest of each hour's viewers (rollup.ViewersSum), written with
-- them: the dashboard tells whether a day's merged viewers changed from
-- its hours' digests, without reading their sketches. NULL on the rows
-- written before, whose sketches a reading still reads, and without
-- viewers.
ALTER TABLE rollup_hours ADD COLUMN viewers_sum BIGINT;

-- In a rolling upgrade, a node of the version before writes a sketch and
-- leaves the digest as it was: the digest is no longer the sketch's, so
-- it goes, and readers read that sketch.
-- +goose StatementBegin
CREATE FUNCTION rollup_hours_viewers_sum() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.viewers_sum := NULL;
    RETURN NEW;
END $$;
-- +goose StatementEnd
CREATE TRIGGER rollup_hours_viewers_sum BEFORE UPDATE OF viewers ON rollup_hours FOR EACH ROW
    WHEN (NEW.viewers IS DISTINCT FROM OLD.viewers AND NEW.viewers_sum IS NOT DISTINCT FROM OLD.viewers_sum)
    EXECUTE FUNCTION rollup_hours_viewers_sum();

-- +goose Down
DROP TRIGGER rollup_hours_viewers_sum ON rollup_hours;
DROP FUNCTION rollup_hours_viewers_sum();
ALTER TABLE rollup_hours DROP COLUMN viewers_sum;
