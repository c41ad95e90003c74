-- +goose Up
-- The digest of each hour's viewers (rollup.ViewersSum), written with
-- them: the dashboard tells whether a day's merged viewers changed from
-- its hours' digests, without reading their sketches. NULL on the rows
-- written before, whose sketches a reading still reads, and without
-- viewers.
ALTER TABLE rollup_hours ADD COLUMN viewers_sum INTEGER;

-- +goose Down
ALTER TABLE rollup_hours DROP COLUMN viewers_sum;
