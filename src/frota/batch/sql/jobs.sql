-- The jobs of semantics §4 over the accepted positions, into `batch_*` tables shaped
-- like the stream's export views (semantics §5: partitions summed away).

CREATE OR REPLACE TABLE vehicle_keys AS
SELECT vehicle_key, any_value(feed_id) AS feed_id, any_value(vehicle_id) AS vehicle_id
FROM input_positions GROUP BY vehicle_key;

-- speed: a segment joins consecutive accepted positions of a key 0 < dt <= 300 s apart
-- and belongs to the local hour and grid cell of its end. Lengths are whole millimetres
-- per segment, so sums are exact integers. A segment implying more than its mode's
-- plausible top speed is counted as implausible and left out of the sums.
CREATE OR REPLACE TABLE segments AS
SELECT mode, route_id, local_date, hour,
       floor(lon / getvariable('cell_degrees'))::INTEGER AS cell_x,
       floor(lat / getvariable('cell_degrees'))::INTEGER AS cell_y,
       millimetres(haversine_m(prev_lat, prev_lon, lat, lon)) AS distance_mm,
       event_us - prev_event_us AS duration_us,
       implied_kmh(prev_lat, prev_lon, prev_event_us, lat, lon, event_us)
         > segment_limit_kmh(mode) AS implausible
FROM accepted
WHERE event_us - prev_event_us > 0
  AND event_us - prev_event_us <= getvariable('segment_max_gap_us');

CREATE OR REPLACE TABLE batch_speed_cells AS
SELECT mode, local_date, hour, cell_x, cell_y, count(*) FILTER (WHERE NOT implausible) AS segments,
       coalesce(sum(distance_mm) FILTER (WHERE NOT implausible), 0)::BIGINT AS distance_mm,
       coalesce(sum(duration_us) FILTER (WHERE NOT implausible), 0)::BIGINT AS duration_us,
       count(*) FILTER (WHERE implausible) AS implausible_segments
FROM segments GROUP BY ALL;

CREATE OR REPLACE TABLE batch_speed_lines AS
SELECT mode, route_id, local_date, hour, count(*) FILTER (WHERE NOT implausible) AS segments,
       coalesce(sum(distance_mm) FILTER (WHERE NOT implausible), 0)::BIGINT AS distance_mm,
       coalesce(sum(duration_us) FILTER (WHERE NOT implausible), 0)::BIGINT AS duration_us,
       count(*) FILTER (WHERE implausible) AS implausible_segments
FROM segments GROUP BY ALL;

-- fleet_hours: vehicles with at least one accepted position in the hour, and positions.
CREATE OR REPLACE TABLE batch_fleet_hours AS
SELECT mode, local_date, hour, count(*) AS vehicles, sum(positions)::BIGINT AS positions
FROM (SELECT mode, local_date, hour, vehicle_key, count(*) AS positions
      FROM accepted GROUP BY ALL)
GROUP BY ALL;

-- stops: a maximal run of a key's accepted positions within 50 m of the run's first
-- (the anchor), gaps <= 300 s, lasting >= 300 s. The anchor depends on where the
-- previous run ended, so runs are found by walking the positions in order (a fold).
-- Only stretches where a vehicle barely moves need the walk: between consecutive
-- positions more than 2 x 50 m apart, or more than 300 s apart, every run ends (a
-- position within 50 m of the anchor is never 100 m from the next one's... anchor: the
-- triangle inequality), so the positions split into independent clusters, each
-- starting with an anchor. Clusters shorter than 300 s hold no stop.
CREATE OR REPLACE TABLE stop_steps AS
SELECT vehicle_key, rn, prev_rn, event_us, lat, lon, prev_event_us, prev_lat, prev_lon
FROM accepted
WHERE event_us - prev_event_us <= getvariable('stop_max_gap_us')
  AND haversine_m(prev_lat, prev_lon, lat, lon) <= 2 * getvariable('stop_radius_m') + 0.001;

CREATE OR REPLACE TABLE stop_clusters AS
WITH marked AS (
  -- A step starts a cluster when the position before it did not continue one.
  SELECT *, lag(rn) OVER (PARTITION BY vehicle_key ORDER BY rn) IS DISTINCT FROM prev_rn
              AS starts_cluster
  FROM stop_steps
), numbered AS (
  SELECT *, sum(starts_cluster::INTEGER) OVER (PARTITION BY vehicle_key ORDER BY rn
                                               ROWS UNBOUNDED PRECEDING) AS cluster
  FROM marked
)
SELECT vehicle_key, cluster,
       arg_min(prev_rn, rn) AS first_rn, arg_min(prev_event_us, rn) AS first_us,
       arg_min(prev_lat, rn) AS first_lat, arg_min(prev_lon, rn) AS first_lon,
       -- Sorted after aggregating (by rn, the first field): an ordered aggregate is
       -- several times slower over this many groups.
       list_sort(list({'rn': rn, 't': event_us, 'lat': lat, 'lon': lon})) AS steps
FROM numbered
GROUP BY ALL
HAVING max(event_us) - arg_min(prev_event_us, rn) >= getvariable('stop_min_duration_us');

-- The walk over one cluster: the open run (anchor, last time, positions) and the runs
-- it has closed. A position within 50 m of the anchor extends the run; any other ends
-- it (kept when it lasted >= 300 s) and anchors the next.
CREATE OR REPLACE TABLE stop_runs AS
WITH walked AS (
  SELECT vehicle_key,
         list_reduce(steps,
           lambda run, p: CASE
             WHEN haversine_m(run.anchor_lat, run.anchor_lon, p.lat, p.lon)
                  <= getvariable('stop_radius_m')
             THEN {'anchor_rn': run.anchor_rn, 'anchor_lat': run.anchor_lat,
                   'anchor_lon': run.anchor_lon, 'start_us': run.start_us, 'end_us': p.t,
                   'positions': run.positions + 1, 'closed': run.closed}
             ELSE {'anchor_rn': p.rn, 'anchor_lat': p.lat, 'anchor_lon': p.lon,
                   'start_us': p.t, 'end_us': p.t, 'positions': 1::BIGINT,
                   'closed': CASE WHEN run.end_us - run.start_us
                                       >= getvariable('stop_min_duration_us')
                                  THEN list_append(run.closed,
                                         {'anchor_rn': run.anchor_rn,
                                          'anchor_lat': run.anchor_lat,
                                          'anchor_lon': run.anchor_lon,
                                          'start_us': run.start_us, 'end_us': run.end_us,
                                          'positions': run.positions})
                                  ELSE run.closed END}
           END,
           {'anchor_rn': first_rn, 'anchor_lat': first_lat, 'anchor_lon': first_lon,
            'start_us': first_us, 'end_us': first_us, 'positions': 1::BIGINT,
            'closed': []::STRUCT(anchor_rn BIGINT, anchor_lat DOUBLE, anchor_lon DOUBLE,
                                 start_us BIGINT, end_us BIGINT, positions BIGINT)[]})
           AS run
  FROM stop_clusters
), runs AS (
  SELECT vehicle_key, unnest(run.closed, recursive := true) FROM walked
  UNION ALL
  -- The cluster's last run ends with it.
  SELECT vehicle_key, run.anchor_rn, run.anchor_lat, run.anchor_lon, run.start_us,
         run.end_us, run.positions
  FROM walked
  WHERE run.end_us - run.start_us >= getvariable('stop_min_duration_us')
)
SELECT * FROM runs;

-- near_terminal: within 250 m of a terminal of the anchor's route; NULL when the route
-- resolves to no GTFS route or no GTFS is given.
CREATE OR REPLACE TABLE batch_stops AS
WITH anchored AS (
  SELECT r.*, a.mode, a.route_id
  FROM stop_runs r JOIN accepted a ON a.vehicle_key = r.vehicle_key AND a.rn = r.anchor_rn
), near AS (
  SELECT s.vehicle_key, s.start_us, bool_and(t.resolved) AS resolved,
         bool_or(haversine_m(s.anchor_lat, s.anchor_lon, t.lat, t.lon)
                 <= getvariable('terminal_radius_m')) AS near
  FROM anchored s JOIN route_terminals t ON t.route_id = s.route_id
  GROUP BY ALL
)
SELECT k.feed_id, k.vehicle_id, make_timestamp(s.start_us) AS start_time, s.mode, s.route_id,
       make_timestamp(s.end_us) AS end_time,
       round(epoch(make_timestamp(s.end_us) - make_timestamp(s.start_us))::DOUBLE, 6)
         AS duration_s,
       s.anchor_lat, s.anchor_lon, s.positions,
       CASE WHEN n.resolved THEN coalesce(n.near, false) END AS near_terminal
FROM anchored s
JOIN vehicle_keys k USING (vehicle_key)
LEFT JOIN near n USING (vehicle_key, start_us);

-- trips: a key's accepted positions with one non-empty (trip_id, trip_start_date), a
-- new trip after a gap > 900 s between positions of that trip (others in between do not
-- count). Distances sum whole millimetres per step. The windows partition by a dense
-- integer id of (trip_id, trip_start_date) rather than by the strings.
CREATE OR REPLACE TABLE trip_keys AS
SELECT trip_id, trip_start_date, (row_number() OVER ())::INTEGER AS trip_key
FROM (SELECT DISTINCT trip_id, trip_start_date FROM accepted WHERE trip_id <> '');

CREATE OR REPLACE TABLE trip_steps AS
SELECT *,
       prev_trip_us IS NULL OR event_us - prev_trip_us > getvariable('trip_max_gap_us')
         AS starts_trip
FROM (
  SELECT a.vehicle_key, t.trip_key, a.rn, a.trip_start_time, a.route_id, a.direction_id,
         a.event_us, a.lat, a.lon,
         lag(a.event_us) OVER by_trip AS prev_trip_us,
         lag(a.lat) OVER by_trip AS prev_trip_lat,
         lag(a.lon) OVER by_trip AS prev_trip_lon
  FROM accepted a JOIN trip_keys t USING (trip_id, trip_start_date)
  WINDOW by_trip AS (PARTITION BY a.vehicle_key, t.trip_key ORDER BY a.rn));

CREATE OR REPLACE TABLE batch_trips AS
WITH numbered AS (
  SELECT *,
         sum(starts_trip::INTEGER) OVER (PARTITION BY vehicle_key, trip_key
                                         ORDER BY rn ROWS UNBOUNDED PRECEDING) AS trip_number,
         CASE WHEN starts_trip THEN 0
              ELSE millimetres(haversine_m(prev_trip_lat, prev_trip_lon, lat, lon)) END
           AS step_mm
  FROM trip_steps
), trips AS (
  SELECT vehicle_key, trip_key,
         min(event_us) AS first_us, arg_min(route_id, rn) AS route_id,
         arg_min_null(direction_id, rn) AS direction_id,
         arg_min(trip_start_time, rn) AS trip_start_time,
         arg_min(lat, rn) AS first_lat, arg_min(lon, rn) AS first_lon,
         max(event_us) AS last_us, arg_max(lat, rn) AS last_lat, arg_max(lon, rn) AS last_lon,
         count(*) AS positions, sum(step_mm)::BIGINT AS distance_mm
  FROM numbered GROUP BY vehicle_key, trip_key, trip_number
)
SELECT k.feed_id, k.vehicle_id, tk.trip_id, tk.trip_start_date,
       make_timestamp(t.first_us) AS first_time, t.route_id, t.direction_id,
       t.trip_start_time, t.first_lat, t.first_lon, make_timestamp(t.last_us) AS last_time,
       t.last_lat, t.last_lon, t.positions, t.distance_mm,
       round(t.distance_mm::DOUBLE / 1000, 3) AS distance_m,
       round(epoch(make_timestamp(t.last_us) - make_timestamp(t.first_us))::DOUBLE, 6)
         AS duration_s,
       -- A schedule slot of the plan (semantics §4 quality): a scheduled trip of it, a
       -- frequency trip only with the feed's start time; NULL without a plan.
       CASE WHEN getvariable('has_plan')
            THEN coalesce((SELECT NOT p.frequency OR t.trip_start_time <> '' FROM plan_trips p
                           WHERE p.trip_id = tk.trip_id), false) END AS plan_slot
FROM trips t JOIN vehicle_keys k USING (vehicle_key) JOIN trip_keys tk USING (trip_key);

-- duplicate slots: a slot of the plan (trip_id, trip_start_date, trip_start_time: a
-- scheduled trip's start time is the plan's or empty) observed in trips of two or more
-- vehicles; without a plan every (trip_id, trip_start_date, trip_start_time) counts.
CREATE OR REPLACE VIEW batch_duplicate_slots AS
SELECT feed_id, trip_start_date, trip_id, trip_start_time,
       count(DISTINCT vehicle_id)::BIGINT AS vehicles,
       string_agg(DISTINCT vehicle_id, ' ' ORDER BY vehicle_id) AS vehicle_ids
FROM batch_trips
WHERE coalesce(plan_slot, true)
GROUP BY feed_id, trip_start_date, trip_id, trip_start_time
HAVING count(DISTINCT vehicle_id) >= 2;

-- rejected: every refused record, with its reason and detail.
CREATE OR REPLACE TABLE batch_rejected AS
SELECT feed_id, vehicle_id, reason, event_us, ingest_us, source_id, source_offset, detail
FROM input_rejections
UNION ALL
SELECT feed_id, vehicle_id, reason, event_us, ingest_us, source_id, source_offset, detail
FROM record_rejections
UNION ALL
SELECT p.feed_id, p.vehicle_id, 'late', p.event_us, p.ingest_us, p.source_id,
       p.source_offset,
       'event_time=' || iso8601(p.event_us)
FROM late_records l JOIN input_positions p USING (seq)
UNION ALL
SELECT p.feed_id, p.vehicle_id, r.reason, p.event_us, p.ingest_us, p.source_id,
       p.source_offset, r.detail
FROM key_rejections r JOIN input_positions p USING (seq);

-- quality: per feed and local hour. Accepted positions, duplicates, jumps, out_of_area
-- and late refusals count in the hour of their event time; refusals by rules 1-3 in the
-- hour of their ingest time (else event time, else the epoch), docs/semantics-notes.md.
CREATE OR REPLACE TABLE quality_events AS
SELECT a.feed_id, a.local_date, a.hour, a.vehicle_key, NULL AS reason,
       floor_div(a.ingest_us - a.event_us, 1000000) AS latency_s
FROM accepted a
UNION ALL
SELECT r.feed_id, h.local_date, h.hour, NULL, r.reason, NULL
FROM (SELECT *,
             CASE WHEN reason IN ('out_of_area', 'late', 'duplicate', 'jump')
                       AND event_us IS NOT NULL THEN event_us
                  ELSE coalesce(ingest_us, event_us, 0) END AS dated_us
      FROM batch_rejected) r
JOIN local_hours h ON h.utc_second = floor_div(r.dated_us, 1000000);

-- duplicate_counts: rule 5's refusals per feed, vehicle and local hour of event time.
CREATE OR REPLACE TABLE batch_duplicate_counts AS
SELECT r.feed_id, r.vehicle_id, h.local_date, h.hour, count(*)::BIGINT AS records
FROM batch_rejected r
JOIN local_hours h ON h.utc_second = floor_div(r.event_us, 1000000)
WHERE r.reason = 'duplicate'
GROUP BY ALL;

CREATE OR REPLACE TABLE batch_quality_latency AS
SELECT feed_id, local_date, hour,
       greatest(-30, least(300, latency_s))::SMALLINT AS latency_s, count(*) AS positions
FROM quality_events WHERE reason IS NULL
GROUP BY ALL;

CREATE OR REPLACE TABLE batch_quality AS
WITH counts AS (
  SELECT feed_id, local_date, hour,
         count(*) FILTER (WHERE reason IS NULL) AS accepted,
         count(DISTINCT vehicle_key) AS vehicles,
         count(*) FILTER (WHERE reason IS NOT NULL AND reason <> 'duplicate') AS errors,
         count(*) FILTER (WHERE reason = 'duplicate') AS duplicates,
         count(*) FILTER (WHERE reason = 'missing_vehicle_id') AS missing_vehicle_id,
         count(*) FILTER (WHERE reason = 'missing_coordinates') AS missing_coordinates,
         count(*) FILTER (WHERE reason = 'latitude_out_of_range') AS latitude_out_of_range,
         count(*) FILTER (WHERE reason = 'longitude_out_of_range') AS longitude_out_of_range,
         count(*) FILTER (WHERE reason = 'null_island') AS null_island,
         count(*) FILTER (WHERE reason = 'missing_timestamp') AS missing_timestamp,
         count(*) FILTER (WHERE reason = 'timestamp_in_milliseconds') AS timestamp_in_milliseconds,
         count(*) FILTER (WHERE reason = 'state_vector_too_short') AS state_vector_too_short,
         count(*) FILTER (WHERE reason = 'malformed_record') AS malformed_record,
         count(*) FILTER (WHERE reason = 'bad_payload') AS bad_payload,
         count(*) FILTER (WHERE reason = 'future') AS future,
         count(*) FILTER (WHERE reason = 'stale') AS stale,
         count(*) FILTER (WHERE reason = 'out_of_area') AS out_of_area,
         count(*) FILTER (WHERE reason = 'jump') AS jump,
         count(*) FILTER (WHERE reason = 'late') AS late
  FROM quality_events GROUP BY ALL
), cumulative AS (
  SELECT *, sum(positions) OVER (PARTITION BY feed_id, local_date, hour ORDER BY latency_s
                                 ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS running,
            sum(positions) OVER (PARTITION BY feed_id, local_date, hour) AS total
  FROM batch_quality_latency
), percentiles AS (
  -- The smallest latency whose cumulative count reaches 50 % / 90 %.
  SELECT feed_id, local_date, hour,
         min(latency_s) FILTER (WHERE running >= 0.5 * total) AS latency_p50_s,
         min(latency_s) FILTER (WHERE running >= 0.9 * total) AS latency_p90_s
  FROM cumulative GROUP BY ALL
)
SELECT c.*, p.latency_p50_s, p.latency_p90_s
FROM counts c LEFT JOIN percentiles p USING (feed_id, local_date, hour);

-- The staged input and the intermediate steps, freed before the comparison (whose
-- joins need the memory): the batch_* tables, `accepted` and `late_records` stay.
DROP TABLE input_positions;
DROP TABLE record_rejections;
DROP TABLE key_rejections;
DROP TABLE segments;
DROP TABLE stop_steps;
DROP TABLE stop_clusters;
DROP TABLE stop_runs;
DROP TABLE trip_steps;
DROP TABLE quality_events;
