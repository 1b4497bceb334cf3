-- What users read: the silver tables with their texts (schema_v2.sql keeps ids), and
-- aggregates summed over partitions (semantics.md section 5), with the means derived from
-- the integer sums. Re-created on open when this text changed (duckdb_sink.cc,
-- EnsureViews), so they always match the binary.

-- base::FormatIso8601's text of a UTC instant in microseconds: a duplicate's detail.
CREATE OR REPLACE MACRO frota_iso8601(us) AS
  strftime(make_timestamp(us), '%Y-%m-%dT%H:%M:%S')
  || CASE WHEN ((us % 1000000) + 1000000) % 1000000 <> 0
          THEN printf('.%06d', ((us % 1000000) + 1000000) % 1000000) ELSE '' END
  || 'Z';

-- Positions: positions_data with the texts of its label (position_labels, schema_v3.sql).
CREATE OR REPLACE VIEW positions AS
SELECT l.feed_id, l.vehicle_id, l.mode, l.route_id, l.trip_id, l.trip_start_date,
       l.trip_start_time, l.direction_id, p.lat, p.lon, p.reported_speed_kmh, p.bearing_deg,
       p.altitude_m, p.on_ground, p.event_time, p.ingest_time, p.event_time_from_header,
       src.text AS source, p.source_offset
FROM positions_data p
LEFT JOIN (
  SELECT pl.id, f.text AS feed_id, v.text AS vehicle_id, m.name AS mode, r.text AS route_id,
         t.text AS trip_id, d.text AS trip_start_date, st.text AS trip_start_time,
         pl.direction_id
  FROM position_labels pl
  LEFT JOIN strings f ON f.id = pl.feed_id
  LEFT JOIN strings v ON v.id = pl.vehicle_id
  LEFT JOIN modes m ON m.id = pl.mode
  LEFT JOIN strings r ON r.id = pl.route_id
  LEFT JOIN strings t ON t.id = pl.trip_id
  LEFT JOIN strings d ON d.id = pl.trip_start_date
  LEFT JOIN strings st ON st.id = pl.trip_start_time
) l ON l.id = p.label
LEFT JOIN strings src ON src.id = p.source;

-- Refusals: rejected_data (every reason, with its detail; a NULL detail, written by
-- schema version 2, is a duplicate's) and duplicates_data (schema_v3.sql: reason
-- `duplicate`, the detail derived from the event time).
CREATE OR REPLACE VIEW rejected AS
SELECT f.text AS feed_id, v.text AS vehicle_id, x.name AS reason, j.event_time,
       j.ingest_time, src.text AS source, j.source_offset,
       coalesce(j.detail, 'event_time=' || frota_iso8601(epoch_us(j.event_time))) AS detail
FROM (
  SELECT feed_id, vehicle_id, reason, event_time, ingest_time, source, source_offset, detail
  FROM rejected_data
  UNION ALL
  SELECT feed_id, vehicle_id, (SELECT id FROM reject_reasons WHERE name = 'duplicate'),
         event_time, ingest_time, source, source_offset, NULL::VARCHAR
  FROM duplicates_data
) j
LEFT JOIN strings f ON f.id = j.feed_id
LEFT JOIN strings v ON v.id = j.vehicle_id
LEFT JOIN reject_reasons x ON x.id = j.reason
LEFT JOIN strings src ON src.id = j.source;

CREATE OR REPLACE VIEW speed_cell_totals AS
SELECT mode, local_date, hour, cell_x, cell_y,
       sum(segments)::BIGINT AS segments,
       sum(distance_mm)::BIGINT AS distance_mm,
       sum(duration_us)::BIGINT AS duration_us,
       round(sum(distance_mm)::DOUBLE / 1000, 3) AS distance_m,
       round(sum(duration_us)::DOUBLE / 1e6, 3) AS duration_s,
       round(3600 * sum(distance_mm)::DOUBLE / nullif(sum(duration_us), 0)::DOUBLE, 3)
         AS mean_speed_kmh,
       -- Segments over max_segment_speed_kmh: counted, never in the sums above.
       sum(implausible_segments)::BIGINT AS implausible_segments
FROM speed_cells
GROUP BY mode, local_date, hour, cell_x, cell_y;

CREATE OR REPLACE VIEW speed_line_totals AS
SELECT mode, route_id, local_date, hour,
       sum(segments)::BIGINT AS segments,
       sum(distance_mm)::BIGINT AS distance_mm,
       sum(duration_us)::BIGINT AS duration_us,
       round(sum(distance_mm)::DOUBLE / 1000, 3) AS distance_m,
       round(sum(duration_us)::DOUBLE / 1e6, 3) AS duration_s,
       round(3600 * sum(distance_mm)::DOUBLE / nullif(sum(duration_us), 0)::DOUBLE, 3)
         AS mean_speed_kmh,
       -- Segments over max_segment_speed_kmh: counted, never in the sums above.
       sum(implausible_segments)::BIGINT AS implausible_segments
FROM speed_lines
GROUP BY mode, route_id, local_date, hour;

CREATE OR REPLACE VIEW fleet_hour_totals AS
SELECT mode, local_date, hour,
       sum(vehicles)::BIGINT AS vehicles,
       sum(positions)::BIGINT AS positions
FROM fleet_hours
GROUP BY mode, local_date, hour;

-- Refused duplicates per feed, vehicle and local hour (semantics.md section 2, rule 5),
-- partitions summed.
CREATE OR REPLACE VIEW duplicate_count_totals AS
SELECT feed_id, vehicle_id, local_date, hour, sum(records)::BIGINT AS records
FROM duplicate_counts
GROUP BY feed_id, vehicle_id, local_date, hour;

-- A stop's place (docs/semantics-notes.md, "Depots"). With garages (table garage_edges,
-- from --garages): `depot` inside them, else `terminal` within 250 m of a terminal of its
-- route, else `en_route`. Without: `terminal` within 250 m of a terminal of its route;
-- `depot` in a place where buses of the feed stand out of service: a cell of 0.002
-- degrees (about 220 m) that holds stands of 2 hours or more away from their route's
-- terminals by 3 or more vehicles on 3 or more dates, and no stop at its own route's
-- terminal; a stop is at it when its own cell or a neighbour is one; `en_route`
-- otherwise. NULL when near_terminal is (the route is not in the GTFS) and the stop is
-- at no depot.
CREATE OR REPLACE MACRO frota_depot_cell(degrees) AS floor(degrees / 0.002)::BIGINT;

-- Whether (lat, lon) is inside the garages: geo::Area's even-odd rule (src/frota/geo/
-- area.h) over every edge, computed as it computes it, so both answer alike.
CREATE OR REPLACE MACRO frota_in_garage(lat, lon) AS
  (SELECT count(*) FROM garage_edges e
   WHERE (e.lat_a > lat) <> (e.lat_b > lat)
     AND lon < least(greatest(e.lon_a + (lat - e.lat_a) * (e.lon_b - e.lon_a) / (e.lat_b - e.lat_a),
                              least(e.lon_a, e.lon_b)),
                     greatest(e.lon_a, e.lon_b))) % 2 = 1;

CREATE OR REPLACE VIEW stop_depot_cells AS
SELECT frota_depot_cell(anchor_lat) AS cell_y, frota_depot_cell(anchor_lon) AS cell_x
FROM stops
GROUP BY ALL
HAVING count(DISTINCT vehicle_id) FILTER (WHERE near_terminal = false
                                            AND end_time - start_time >= INTERVAL 2 HOUR) >= 3
   AND count(DISTINCT CAST(start_time AS DATE))
         FILTER (WHERE near_terminal = false AND end_time - start_time >= INTERVAL 2 HOUR) >= 3
   AND count(*) FILTER (WHERE near_terminal) = 0;

CREATE OR REPLACE VIEW stop_rows AS
SELECT feed_id, vehicle_id, start_time, mode, route_id, end_time,
       round(epoch(end_time - start_time)::DOUBLE, 6) AS duration_s,
       anchor_lat, anchor_lon, positions, near_terminal,
       CASE WHEN EXISTS (SELECT 1 FROM garage_edges) THEN
              CASE WHEN frota_in_garage(s.anchor_lat, s.anchor_lon) THEN 'depot'
                   WHEN near_terminal THEN 'terminal'
                   WHEN near_terminal = false THEN 'en_route' END
            WHEN near_terminal THEN 'terminal'
            WHEN EXISTS (SELECT 1 FROM stop_depot_cells d
                         WHERE abs(d.cell_y - frota_depot_cell(s.anchor_lat)) <= 1
                           AND abs(d.cell_x - frota_depot_cell(s.anchor_lon)) <= 1) THEN 'depot'
            WHEN near_terminal = false THEN 'en_route' END AS place
FROM stops s;

CREATE OR REPLACE VIEW trip_rows AS
SELECT feed_id, vehicle_id, trip_id, trip_start_date, first_time, route_id, direction_id,
       trip_start_time, first_lat, first_lon, last_time, last_lat, last_lon, positions,
       round(distance_mm::DOUBLE / 1000, 3) AS distance_m,
       round(epoch(last_time - first_time)::DOUBLE, 6) AS duration_s,
       plan_slot
FROM trips;

CREATE OR REPLACE VIEW latency_percentiles AS
WITH h AS (
  SELECT feed_id, local_date, hour, latency_s, sum(positions) AS positions
  FROM quality_latency GROUP BY feed_id, local_date, hour, latency_s
), c AS (
  SELECT *, sum(positions) OVER (PARTITION BY feed_id, local_date, hour ORDER BY latency_s
                                 ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS running,
            sum(positions) OVER (PARTITION BY feed_id, local_date, hour) AS total
  FROM h
)
SELECT feed_id, local_date, hour,
       min(latency_s) FILTER (WHERE running >= 0.5 * total) AS latency_p50_s,
       min(latency_s) FILTER (WHERE running >= 0.9 * total) AS latency_p90_s
FROM c GROUP BY feed_id, local_date, hour;

CREATE OR REPLACE VIEW quality_hours AS
SELECT q.feed_id, q.local_date, q.hour,
       sum(accepted)::BIGINT AS accepted,
       sum(vehicles)::BIGINT AS vehicles,
       sum(missing_vehicle_id + missing_coordinates + latitude_out_of_range +
           longitude_out_of_range + null_island + missing_timestamp +
           timestamp_in_milliseconds + state_vector_too_short + malformed_record +
           bad_payload + future + stale + out_of_area + jump + late)::BIGINT AS errors,
       sum(duplicate)::BIGINT AS duplicates,
       sum(missing_vehicle_id)::BIGINT AS missing_vehicle_id,
       sum(missing_coordinates)::BIGINT AS missing_coordinates,
       sum(latitude_out_of_range)::BIGINT AS latitude_out_of_range,
       sum(longitude_out_of_range)::BIGINT AS longitude_out_of_range,
       sum(null_island)::BIGINT AS null_island,
       sum(missing_timestamp)::BIGINT AS missing_timestamp,
       sum(timestamp_in_milliseconds)::BIGINT AS timestamp_in_milliseconds,
       sum(state_vector_too_short)::BIGINT AS state_vector_too_short,
       sum(malformed_record)::BIGINT AS malformed_record,
       sum(bad_payload)::BIGINT AS bad_payload,
       sum(future)::BIGINT AS future,
       sum(stale)::BIGINT AS stale,
       sum(out_of_area)::BIGINT AS out_of_area,
       sum(jump)::BIGINT AS jump,
       sum(late)::BIGINT AS late,
       any_value(p.latency_p50_s) AS latency_p50_s,
       any_value(p.latency_p90_s) AS latency_p90_s
FROM quality q
LEFT JOIN latency_percentiles p USING (feed_id, local_date, hour)
GROUP BY q.feed_id, q.local_date, q.hour;

-- Schedule slots observed with two or more vehicles (semantics.md section 4, quality): only
-- trips that are slots of the plan (trips.plan_slot; every trip without a plan).
CREATE OR REPLACE VIEW duplicate_slots AS
SELECT feed_id, trip_start_date, trip_id, trip_start_time,
       count(DISTINCT vehicle_id)::BIGINT AS vehicles,
       string_agg(DISTINCT vehicle_id, ' ' ORDER BY vehicle_id) AS vehicle_ids
FROM trips
WHERE coalesce(plan_slot, true)
GROUP BY feed_id, trip_start_date, trip_id, trip_start_time
HAVING count(DISTINCT vehicle_id) >= 2;
