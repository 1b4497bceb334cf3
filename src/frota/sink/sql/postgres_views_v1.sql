-- What users read in PostgreSQL: aggregates summed over partitions (semantics.md section
-- 5), the same views as views_v1.sql (DuckDB) in PostgreSQL's dialect. Recreated on every
-- open, so they always match the binary. `frota export --postgres` does not read these:
-- it copies the tables into DuckDB and uses DuckDB's views, so its files are
-- byte-identical to an embedded run's.

CREATE OR REPLACE VIEW speed_cell_totals AS
SELECT mode, local_date, hour, cell_x, cell_y,
       sum(segments)::bigint AS segments,
       sum(distance_mm)::bigint AS distance_mm,
       sum(duration_us)::bigint AS duration_us,
       round(sum(distance_mm)::numeric / 1000, 3)::double precision AS distance_m,
       round(sum(duration_us)::numeric / 1e6, 3)::double precision AS duration_s,
       round((3600 * sum(distance_mm)::double precision
              / nullif(sum(duration_us), 0)::double precision)::numeric, 3)::double precision
         AS mean_speed_kmh,
       sum(implausible_segments)::bigint AS implausible_segments
FROM speed_cells
GROUP BY mode, local_date, hour, cell_x, cell_y;

CREATE OR REPLACE VIEW speed_line_totals AS
SELECT mode, route_id, local_date, hour,
       sum(segments)::bigint AS segments,
       sum(distance_mm)::bigint AS distance_mm,
       sum(duration_us)::bigint AS duration_us,
       round(sum(distance_mm)::numeric / 1000, 3)::double precision AS distance_m,
       round(sum(duration_us)::numeric / 1e6, 3)::double precision AS duration_s,
       round((3600 * sum(distance_mm)::double precision
              / nullif(sum(duration_us), 0)::double precision)::numeric, 3)::double precision
         AS mean_speed_kmh,
       sum(implausible_segments)::bigint AS implausible_segments
FROM speed_lines
GROUP BY mode, route_id, local_date, hour;

CREATE OR REPLACE VIEW fleet_hour_totals AS
SELECT mode, local_date, hour,
       sum(vehicles)::bigint AS vehicles,
       sum(positions)::bigint AS positions
FROM fleet_hours
GROUP BY mode, local_date, hour;

-- Refused duplicates per feed, vehicle and local hour (semantics.md section 2, rule 5),
-- partitions summed.
CREATE OR REPLACE VIEW duplicate_count_totals AS
SELECT feed_id, vehicle_id, local_date, hour, sum(records)::bigint AS records
FROM duplicate_counts
GROUP BY feed_id, vehicle_id, local_date, hour;

-- A stop's place: as views_v1.sql (DuckDB) says.
CREATE OR REPLACE FUNCTION frota_in_garage(lat double precision, lon double precision)
RETURNS boolean LANGUAGE sql STABLE AS $$
  SELECT count(*) % 2 = 1 FROM garage_edges e
  WHERE (e.lat_a > lat) <> (e.lat_b > lat)
    AND lon < least(greatest(e.lon_a + (lat - e.lat_a) * (e.lon_b - e.lon_a) / (e.lat_b - e.lat_a),
                             least(e.lon_a, e.lon_b)),
                    greatest(e.lon_a, e.lon_b))
$$;

CREATE OR REPLACE VIEW stop_depot_cells AS
SELECT floor(anchor_lat / 0.002)::bigint AS cell_y, floor(anchor_lon / 0.002)::bigint AS cell_x
FROM stops
GROUP BY 1, 2
HAVING count(DISTINCT vehicle_id) FILTER (WHERE near_terminal = false
                                            AND end_time - start_time >= INTERVAL '2 hours') >= 3
   AND count(DISTINCT start_time::date)
         FILTER (WHERE near_terminal = false AND end_time - start_time >= INTERVAL '2 hours') >= 3
   AND count(*) FILTER (WHERE near_terminal) = 0;

CREATE OR REPLACE VIEW stop_rows AS
SELECT feed_id, vehicle_id, start_time, mode, route_id, end_time,
       round(extract(epoch FROM end_time - start_time), 6)::double precision AS duration_s,
       anchor_lat, anchor_lon, positions, near_terminal,
       CASE WHEN EXISTS (SELECT 1 FROM garage_edges) THEN
              CASE WHEN frota_in_garage(s.anchor_lat, s.anchor_lon) THEN 'depot'
                   WHEN near_terminal THEN 'terminal'
                   WHEN near_terminal = false THEN 'en_route' END
            WHEN near_terminal THEN 'terminal'
            WHEN EXISTS (SELECT 1 FROM stop_depot_cells d
                         WHERE abs(d.cell_y - floor(s.anchor_lat / 0.002)::bigint) <= 1
                           AND abs(d.cell_x - floor(s.anchor_lon / 0.002)::bigint) <= 1)
              THEN 'depot'
            WHEN near_terminal = false THEN 'en_route' END AS place
FROM stops s;

CREATE OR REPLACE VIEW trip_rows AS
SELECT feed_id, vehicle_id, trip_id, trip_start_date, first_time, route_id, direction_id,
       trip_start_time, first_lat, first_lon, last_time, last_lat, last_lon, positions,
       round(distance_mm::numeric / 1000, 3)::double precision AS distance_m,
       round(extract(epoch FROM last_time - first_time), 6)::double precision AS duration_s,
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
       sum(accepted)::bigint AS accepted,
       sum(vehicles)::bigint AS vehicles,
       sum(missing_vehicle_id + missing_coordinates + latitude_out_of_range +
           longitude_out_of_range + null_island + missing_timestamp +
           timestamp_in_milliseconds + state_vector_too_short + malformed_record +
           bad_payload + future + stale + out_of_area + jump + late)::bigint AS errors,
       sum(duplicate)::bigint AS duplicates,
       sum(missing_vehicle_id)::bigint AS missing_vehicle_id,
       sum(missing_coordinates)::bigint AS missing_coordinates,
       sum(latitude_out_of_range)::bigint AS latitude_out_of_range,
       sum(longitude_out_of_range)::bigint AS longitude_out_of_range,
       sum(null_island)::bigint AS null_island,
       sum(missing_timestamp)::bigint AS missing_timestamp,
       sum(timestamp_in_milliseconds)::bigint AS timestamp_in_milliseconds,
       sum(state_vector_too_short)::bigint AS state_vector_too_short,
       sum(malformed_record)::bigint AS malformed_record,
       sum(bad_payload)::bigint AS bad_payload,
       sum(future)::bigint AS future,
       sum(stale)::bigint AS stale,
       sum(out_of_area)::bigint AS out_of_area,
       sum(jump)::bigint AS jump,
       sum(late)::bigint AS late,
       min(p.latency_p50_s) AS latency_p50_s,
       min(p.latency_p90_s) AS latency_p90_s
FROM quality q
LEFT JOIN latency_percentiles p USING (feed_id, local_date, hour)
GROUP BY q.feed_id, q.local_date, q.hour;

-- Schedule slots observed with two or more vehicles (semantics.md section 4, quality): only
-- trips that are slots of the plan (trips.plan_slot; every trip without a plan).
-- trip_start_time comes last: PostgreSQL's CREATE OR REPLACE VIEW only adds columns at the end.
CREATE OR REPLACE VIEW duplicate_slots AS
SELECT feed_id, trip_start_date, trip_id,
       count(DISTINCT vehicle_id)::bigint AS vehicles,
       string_agg(DISTINCT vehicle_id, ' ' ORDER BY vehicle_id) AS vehicle_ids,
       trip_start_time
FROM trips
WHERE coalesce(plan_slot, true)
GROUP BY feed_id, trip_start_date, trip_id, trip_start_time
HAVING count(DISTINCT vehicle_id) >= 2;
