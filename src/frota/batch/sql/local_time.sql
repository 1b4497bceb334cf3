-- Local dates and hours (semantics §1: the feed's zone, never UTC). The zone's offset
-- changes only at whole seconds, so the local hour of every distinct UTC second that
-- any record carries is looked up once, through DuckDB's ICU time zones, and joined by
-- second. base::TimeZone (the stream's, from the system tz database) must agree with
-- ICU; reconcile_test.cc checks that it does over the years the feeds cover.
CREATE OR REPLACE TABLE local_hours AS
WITH utc_seconds AS (
  SELECT floor_div(event_us, 1000000) AS utc_second FROM input_positions
  UNION
  SELECT floor_div(ingest_us, 1000000) FROM input_positions
  UNION
  SELECT floor_div(coalesce(ingest_us, event_us, 0), 1000000) FROM input_rejections
  UNION
  SELECT floor_div(coalesce(event_us, 0), 1000000) FROM input_rejections
), local_times AS (
  SELECT utc_second, timezone(getvariable('time_zone'), to_timestamp(utc_second)) AS local_time
  FROM utc_seconds
)
SELECT utc_second, local_time::DATE AS local_date, hour(local_time)::TINYINT AS hour
FROM local_times;
