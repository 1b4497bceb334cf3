-- The row-by-row comparison of every stream table (the attached database `stream`, read
-- through its export views: partitions summed away) with its batch recomputation.
--
-- Each side of a table is a view with a key struct `k`, a value struct `v` compared
-- exactly, and optionally a distance in millimetres `mm` compared with a tolerance:
-- the batch side's `mm_allowance`, one millimetre per segment summed, because a
-- segment's length is rounded to a whole millimetre on each side and a last-bit
-- difference of a sine can move that rounding by one. Everything else must be equal.

-- positions and rejected: one row per input record, keyed by where it came from. The batch
-- side reads them through compared_accepted and compared_rejected (reconcile.cc,
-- CutBatchToWindow): every row, or those of the window `--from`/`--to` asks for.
CREATE OR REPLACE VIEW cmp_positions_stream AS
SELECT {'source': source, 'source_offset': source_offset} AS k,
       {'feed_id': feed_id, 'vehicle_id': vehicle_id, 'mode': mode, 'route_id': route_id,
        'trip_id': trip_id, 'trip_start_date': trip_start_date,
        'trip_start_time': trip_start_time, 'direction_id': direction_id, 'lat': lat,
        'lon': lon, 'reported_speed_kmh': reported_speed_kmh, 'bearing_deg': bearing_deg,
        'altitude_m': altitude_m, 'on_ground': on_ground, 'event_time': event_time,
        'ingest_time': ingest_time, 'event_time_from_header': event_time_from_header} AS v,
       NULL::BIGINT AS mm
FROM stream.positions;

CREATE OR REPLACE VIEW cmp_positions_batch AS
SELECT {'source': s.name, 'source_offset': p.source_offset} AS k,
       {'feed_id': feed_id, 'vehicle_id': vehicle_id, 'mode': mode, 'route_id': route_id,
        'trip_id': trip_id, 'trip_start_date': trip_start_date,
        'trip_start_time': trip_start_time, 'direction_id': direction_id, 'lat': lat,
        'lon': lon, 'reported_speed_kmh': reported_speed_kmh, 'bearing_deg': bearing_deg,
        'altitude_m': altitude_m, 'on_ground': on_ground,
        'event_time': make_timestamp(event_us), 'ingest_time': make_timestamp(ingest_us),
        'event_time_from_header': event_time_from_header} AS v,
       NULL::BIGINT AS mm, NULL::BIGINT AS mm_allowance
FROM compared_accepted p JOIN sources s USING (source_id);

CREATE OR REPLACE VIEW cmp_rejected_stream AS
SELECT {'source': source, 'source_offset': source_offset} AS k,
       {'feed_id': feed_id, 'vehicle_id': vehicle_id, 'reason': reason,
        'event_time': event_time, 'ingest_time': ingest_time, 'detail': detail} AS v,
       NULL::BIGINT AS mm
FROM stream.rejected
WHERE reason <> 'duplicate';  -- counted in duplicate_counts (a database written before
                              -- schema version 9 may still hold some as rows)

CREATE OR REPLACE VIEW cmp_rejected_batch AS
SELECT {'source': s.name, 'source_offset': r.source_offset} AS k,
       {'feed_id': feed_id, 'vehicle_id': vehicle_id, 'reason': reason,
        'event_time': make_timestamp(event_us), 'ingest_time': make_timestamp(ingest_us),
        'detail': detail} AS v,
       NULL::BIGINT AS mm, NULL::BIGINT AS mm_allowance
FROM compared_rejected r JOIN sources s USING (source_id)
WHERE reason <> 'duplicate';

-- The catalog's tables (model/tables.h: speed_cells, speed_lines, fleet_hours, stops,
-- trips, quality, quality_latency, duplicate_counts; aircraft_positions below):
-- their cmp_<table>_stream and cmp_<table>_batch views are made from it
-- (sink::CompareViewSql) before this file runs, the stream side from stream.<read view>,
-- the batch side from batch_<table>. The speed tables' distance is compared within one
-- millimetre per segment, trips' within one per step (their `mm_allowance`); trip_rows
-- shows metres with three decimals, i.e. exactly the millimetres. Every counter and
-- percentile of quality is compared; quality_latency, the histogram behind the
-- percentiles, is summed over partitions on the stream side.

CREATE OR REPLACE VIEW cmp_duplicate_slots_stream AS
SELECT {'feed_id': feed_id, 'trip_start_date': trip_start_date, 'trip_id': trip_id,
        'trip_start_time': trip_start_time} AS k,
       {'vehicles': vehicles, 'vehicle_ids': vehicle_ids} AS v, NULL::BIGINT AS mm
FROM stream.duplicate_slots;

CREATE OR REPLACE VIEW cmp_duplicate_slots_batch AS
SELECT {'feed_id': feed_id, 'trip_start_date': trip_start_date, 'trip_id': trip_id,
        'trip_start_time': trip_start_time} AS k,
       {'vehicles': vehicles, 'vehicle_ids': vehicle_ids} AS v, NULL::BIGINT AS mm,
       NULL::BIGINT AS mm_allowance
FROM batch_duplicate_slots;

-- How one joined pair of rows differs, NULL when it does not: `missing` (a batch row the
-- stream lacks), `extra` (a stream row the batch does not have), `different` (same key,
-- other values; distances may differ by the batch row's allowance in millimetres).
CREATE OR REPLACE MACRO difference_kind(stream_k, batch_k, stream_v, batch_v, stream_mm,
                                        batch_mm, mm_allowance) AS
  CASE WHEN stream_k IS NULL THEN 'missing'
       WHEN batch_k IS NULL THEN 'extra'
       WHEN stream_v IS DISTINCT FROM batch_v
         OR (stream_mm IS DISTINCT FROM batch_mm
             AND (stream_mm IS NULL OR batch_mm IS NULL
                  OR abs(stream_mm - batch_mm) > mm_allowance)) THEN 'different'
  END;

-- A compared row as text for the report, its distance (if any) among its values.
CREATE OR REPLACE MACRO difference_row(v, mm) AS
  CASE WHEN v IS NOT NULL THEN
    CASE WHEN mm IS NULL THEN v::VARCHAR
         ELSE struct_insert(v, distance_mm := mm)::VARCHAR END END;

-- The differences of one table. Keys are unique on the batch side by construction. This
-- macro joins the stream's rows as they are, which is right when the stream's keys are
-- unique too (grouping millions of rows with their values first would cost several times
-- the join); see repeated_key_tables.
CREATE OR REPLACE MACRO table_differences(stream_side, batch_side) AS TABLE
WITH joined AS (
  SELECT s.k AS stream_k, b.k AS batch_k, s.v AS stream_v, b.v AS batch_v,
         s.mm AS stream_mm, b.mm AS batch_mm, b.mm_allowance
  FROM query_table(stream_side) s FULL OUTER JOIN query_table(batch_side) b ON s.k = b.k
), classified AS (
  SELECT *, difference_kind(stream_k, batch_k, stream_v, batch_v, stream_mm, batch_mm,
                            mm_allowance) AS kind
  FROM joined
)
SELECT kind, coalesce(stream_k, batch_k)::VARCHAR AS key,
       difference_row(stream_v, stream_mm) AS stream_row,
       difference_row(batch_v, batch_mm) AS batch_row, 1::BIGINT AS weight
FROM classified WHERE kind IS NOT NULL;

-- The same for a stream table that repeats keys: the stream's rows grouped by key, one
-- copy compared and every other copy `extra` (counted in `weight`).
CREATE OR REPLACE MACRO table_differences_grouped(stream_side, batch_side) AS TABLE
WITH s AS (
  SELECT k, any_value(v) AS v, any_value(mm) AS mm, count(*) AS copies
  FROM query_table(stream_side) GROUP BY k
), joined AS (
  SELECT s.k AS stream_k, b.k AS batch_k, s.v AS stream_v, b.v AS batch_v,
         s.mm AS stream_mm, b.mm AS batch_mm, b.mm_allowance, s.copies
  FROM s FULL OUTER JOIN query_table(batch_side) b ON s.k = b.k
), classified AS (
  SELECT *, difference_kind(stream_k, batch_k, stream_v, batch_v, stream_mm, batch_mm,
                            mm_allowance) AS kind
  FROM joined
)
SELECT kind, coalesce(stream_k, batch_k)::VARCHAR AS key,
       difference_row(stream_v, stream_mm) AS stream_row,
       difference_row(batch_v, batch_mm) AS batch_row, 1::BIGINT AS weight
FROM classified WHERE kind IS NOT NULL
UNION ALL
SELECT 'extra', stream_k::VARCHAR, stream_v::VARCHAR || ' (repeated)', NULL, copies - 1
FROM joined WHERE copies > 1;

-- Every table's differences, and its row counts on both sides.
CREATE OR REPLACE TABLE differences AS
          SELECT 'positions' AS table_name, * FROM table_differences('cmp_positions_stream', 'cmp_positions_batch')
UNION ALL SELECT 'rejected', * FROM table_differences('cmp_rejected_stream', 'cmp_rejected_batch')
UNION ALL SELECT 'speed_cells', * FROM table_differences('cmp_speed_cells_stream', 'cmp_speed_cells_batch')
UNION ALL SELECT 'speed_lines', * FROM table_differences('cmp_speed_lines_stream', 'cmp_speed_lines_batch')
UNION ALL SELECT 'fleet_hours', * FROM table_differences('cmp_fleet_hours_stream', 'cmp_fleet_hours_batch')
UNION ALL SELECT 'stops', * FROM table_differences('cmp_stops_stream', 'cmp_stops_batch')
UNION ALL SELECT 'trips', * FROM table_differences('cmp_trips_stream', 'cmp_trips_batch')
UNION ALL SELECT 'quality', * FROM table_differences('cmp_quality_stream', 'cmp_quality_batch')
UNION ALL SELECT 'quality_latency', * FROM table_differences('cmp_quality_latency_stream', 'cmp_quality_latency_batch')
UNION ALL SELECT 'duplicate_counts', * FROM table_differences('cmp_duplicate_counts_stream', 'cmp_duplicate_counts_batch')
UNION ALL SELECT 'duplicate_slots', * FROM table_differences('cmp_duplicate_slots_stream', 'cmp_duplicate_slots_batch');

CREATE OR REPLACE TABLE table_rows AS
          SELECT 'positions' AS table_name, (SELECT count(*) FROM cmp_positions_stream) AS stream_rows, (SELECT count(*) FROM cmp_positions_batch) AS batch_rows
UNION ALL SELECT 'rejected', (SELECT count(*) FROM cmp_rejected_stream), (SELECT count(*) FROM cmp_rejected_batch)
UNION ALL SELECT 'speed_cells', (SELECT count(*) FROM cmp_speed_cells_stream), (SELECT count(*) FROM cmp_speed_cells_batch)
UNION ALL SELECT 'speed_lines', (SELECT count(*) FROM cmp_speed_lines_stream), (SELECT count(*) FROM cmp_speed_lines_batch)
UNION ALL SELECT 'fleet_hours', (SELECT count(*) FROM cmp_fleet_hours_stream), (SELECT count(*) FROM cmp_fleet_hours_batch)
UNION ALL SELECT 'stops', (SELECT count(*) FROM cmp_stops_stream), (SELECT count(*) FROM cmp_stops_batch)
UNION ALL SELECT 'trips', (SELECT count(*) FROM cmp_trips_stream), (SELECT count(*) FROM cmp_trips_batch)
UNION ALL SELECT 'quality', (SELECT count(*) FROM cmp_quality_stream), (SELECT count(*) FROM cmp_quality_batch)
UNION ALL SELECT 'quality_latency', (SELECT count(*) FROM cmp_quality_latency_stream), (SELECT count(*) FROM cmp_quality_latency_batch)
UNION ALL SELECT 'duplicate_counts', (SELECT count(*) FROM cmp_duplicate_counts_stream), (SELECT count(*) FROM cmp_duplicate_counts_batch)
UNION ALL SELECT 'duplicate_slots', (SELECT count(*) FROM cmp_duplicate_slots_stream), (SELECT count(*) FROM cmp_duplicate_slots_batch);

-- The tables whose stream side repeats a key the batch has. In the plain join every
-- stream row appears once, matched or `extra`, and every batch row once as `missing`
-- or once per matching stream row; so the matched stream rows (stream_rows - extra)
-- outnumber the matched batch rows (batch_rows - missing) exactly when some key the
-- batch has is repeated. reconcile.cc redoes those tables with table_differences_grouped.
-- (A repeated key the batch lacks is `extra` once per copy either way.)
CREATE OR REPLACE VIEW repeated_key_tables AS
SELECT r.table_name
FROM table_rows r
LEFT JOIN (SELECT table_name, count(*) FILTER (WHERE kind = 'extra') AS extra,
                  count(*) FILTER (WHERE kind = 'missing') AS missing
           FROM differences GROUP BY table_name) d USING (table_name)
WHERE r.stream_rows - coalesce(d.extra, 0) > r.batch_rows - coalesce(d.missing, 0);

-- The report: per table, rows on each side and differences by kind, in the order above.
CREATE OR REPLACE VIEW table_summary AS
SELECT r.table_name, r.stream_rows, r.batch_rows,
       coalesce(sum(d.weight) FILTER (WHERE d.kind = 'missing'), 0)::BIGINT AS missing,
       coalesce(sum(d.weight) FILTER (WHERE d.kind = 'extra'), 0)::BIGINT AS extra,
       coalesce(sum(d.weight) FILTER (WHERE d.kind = 'different'), 0)::BIGINT AS different
FROM table_rows r LEFT JOIN differences d USING (table_name)
GROUP BY r.table_name, r.stream_rows, r.batch_rows;

-- The first differences of each table in key order, for the report.
CREATE OR REPLACE VIEW difference_examples AS
SELECT table_name, kind, key, stream_row, batch_row FROM differences
QUALIFY row_number() OVER (PARTITION BY table_name ORDER BY key, kind) <= getvariable('examples');

-- aircraft_positions (schema_v8.sql): an accepted aircraft position's origin country and
-- last contact, keyed like positions; its views are the catalog's (batch side:
-- batch_aircraft_positions, key_results.sql). reconcile.cc (CompareAircraft) adds this
-- table to `differences` and `table_rows` only when either side has a row.
CREATE OR REPLACE TABLE aircraft_table_rows AS
SELECT 'aircraft_positions' AS table_name,
       (SELECT count(*) FROM cmp_aircraft_positions_stream) AS stream_rows,
       (SELECT count(*) FROM cmp_aircraft_positions_batch) AS batch_rows;
