-- Rules 5 and 6, continued (key_rules.sql, then walk_round.sql until the walk is
-- complete): jumps, accepted positions and the key rules' rejections.

-- The breaks on the walk, with their N(b).
CREATE OR REPLACE TABLE walk_breaks AS
SELECT l.vehicle_key, l.rn, l.landing_rn
FROM walk_nodes w JOIN jump_links l ON l.vehicle_key = w.vehicle_key AND l.rn = w.rn;

-- Jumps: the records strictly between a break on the walk and its N (all remaining
-- records when there is no N), with that break as their reference.
CREATE OR REPLACE TABLE jumps AS
SELECT w.vehicle_key, unnest(range(w.rn + 1, coalesce(w.landing_rn, e.last_rn + 1))) AS rn,
       w.rn AS reference_rn
FROM walk_breaks w
JOIN (SELECT vehicle_key, max(rn) AS last_rn FROM key_sequence
      SEMI JOIN walk_breaks USING (vehicle_key) GROUP BY ALL) e USING (vehicle_key);

-- The accepted positions, with their local date and hour, the accepted position before
-- each (the record before it, except at an N(b), which follows its break b), and every
-- column of the input the jobs and the comparison of `positions` read.
CREATE OR REPLACE TABLE accepted AS
SELECT k.seq, k.vehicle_key, k.rn, k.event_us, p.ingest_us, k.lat, k.lon, p.mode, p.route_id,
       p.trip_id, p.trip_start_date, p.trip_start_time, p.direction_id, h.local_date, h.hour,
       CASE WHEN f.vehicle_key IS NOT NULL THEN f.prev_rn WHEN k.rn > 1 THEN k.rn - 1 END
         AS prev_rn,
       CASE WHEN f.vehicle_key IS NOT NULL THEN f.prev_event_us ELSE k.prev_event_us END
         AS prev_event_us,
       CASE WHEN f.vehicle_key IS NOT NULL THEN f.prev_lat ELSE k.prev_lat END AS prev_lat,
       CASE WHEN f.vehicle_key IS NOT NULL THEN f.prev_lon ELSE k.prev_lon END AS prev_lon,
       p.feed_id, p.vehicle_id, p.source_id, p.source_offset, p.reported_speed_kmh,
       p.bearing_deg, p.altitude_m, p.on_ground, p.event_time_from_header, p.origin_country,
       p.last_contact
FROM key_sequence k
JOIN input_positions p USING (seq)
JOIN local_hours h ON h.utc_second = floor_div(k.event_us, 1000000)
ANTI JOIN jumps j ON j.vehicle_key = k.vehicle_key AND j.rn = k.rn
LEFT JOIN (SELECT w.vehicle_key, w.landing_rn, b.rn AS prev_rn, b.event_us AS prev_event_us,
                  b.lat AS prev_lat, b.lon AS prev_lon
           FROM walk_breaks w
           JOIN key_sequence b ON b.vehicle_key = w.vehicle_key AND b.rn = w.rn
           WHERE w.landing_rn IS NOT NULL) f
  ON f.vehicle_key = k.vehicle_key AND f.landing_rn = k.rn;

-- aircraft_positions: the accepted positions model::HasAircraftFields picks (an
-- aircraft's, or any with either field), with their origin country and last contact.
CREATE OR REPLACE VIEW batch_aircraft_positions AS
SELECT feed_id, vehicle_id, make_timestamp(event_us) AS event_time, origin_country,
       last_contact
FROM accepted
WHERE mode = 'aircraft' OR origin_country IS NOT NULL OR last_contact IS NOT NULL;

-- The rejected rows of rules 5 and 6, with the stream's detail text.
CREATE OR REPLACE TABLE key_rejections AS
SELECT d.seq, 'duplicate' AS reason, 'event_time=' || iso8601(d.event_us) AS detail
FROM duplicates d
UNION ALL
SELECT r.seq, 'jump' AS reason,
       printf('implied_speed_kmh=%.1f distance_m=%.1f seconds=%.0f',
              implied_kmh(b.lat, b.lon, b.event_us, r.lat, r.lon, r.event_us),
              haversine_m(b.lat, b.lon, r.lat, r.lon),
              (r.event_us - b.event_us)::DOUBLE / 1000000.0::DOUBLE) AS detail
FROM jumps j
JOIN key_sequence r ON r.vehicle_key = j.vehicle_key AND r.rn = j.rn
JOIN key_sequence b ON b.vehicle_key = j.vehicle_key AND b.rn = j.reference_rn;

-- What the rules' steps kept and nothing after this reads: freed before the jobs run.
DROP TABLE key_sequence;
DROP TABLE duplicates;
DROP TABLE candidates;
DROP TABLE late_suspects;
DROP TABLE IF EXISTS wm_moves;
DROP TABLE IF EXISTS wm_steps;
DROP TABLE IF EXISTS late_records_next;
