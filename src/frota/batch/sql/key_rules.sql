-- Rules 5 (duplicate) and 6 (jump) over each key's records in event-time order
-- (semantics §2-3). Reads candidates, late_records, input_positions, sources; writes
-- `accepted` (with each position's previous accepted position) and `key_rejections`.

-- Rule 5's tie-break: "first in source order" is by source name, then offset.
CREATE OR REPLACE TABLE source_ranks AS
SELECT source_id, name, row_number() OVER (ORDER BY name) AS name_rank FROM sources;

-- The records released to the jobs: passed rules 1-4 and not late.
CREATE OR REPLACE TABLE released AS
SELECT p.seq, p.vehicle_key, p.event_us, p.ingest_us, r.name_rank, p.source_offset, p.lat,
       p.lon, p.mode, p.route_id, p.trip_id, p.trip_start_date, p.trip_start_time,
       p.direction_id
FROM input_positions p
JOIN candidates c USING (seq)
JOIN source_ranks r USING (source_id)
ANTI JOIN late_records l USING (seq);

-- Rule 5: a record with the key and event time of one released before it. Released in
-- event-time order, equal times meet; the first by (source name, offset) stays.
CREATE OR REPLACE TABLE duplicates AS
WITH shared_times AS (
  SELECT vehicle_key, event_us FROM released GROUP BY ALL HAVING count(*) > 1
)
SELECT seq, event_us FROM (
  SELECT r.seq, r.event_us,
         row_number() OVER (PARTITION BY r.vehicle_key, r.event_us
                            ORDER BY r.name_rank, r.source_offset) AS arrival_rank
  FROM released r SEMI JOIN shared_times USING (vehicle_key, event_us))
WHERE arrival_rank > 1;

-- Each key's remaining records numbered 1, 2, ... in event-time order (times are now
-- distinct per key), with the neighbours' time and place.
CREATE OR REPLACE TABLE key_sequence AS
SELECT r.*,
       row_number() OVER by_time AS rn,
       lag(r.event_us) OVER by_time AS prev_event_us,
       lag(r.lat) OVER by_time AS prev_lat,
       lag(r.lon) OVER by_time AS prev_lon,
       lead(r.event_us) OVER by_time AS next_event_us,
       lead(r.lat) OVER by_time AS next_lat,
       lead(r.lon) OVER by_time AS next_lon,
       lead(r.mode) OVER by_time AS next_mode
FROM released r ANTI JOIN duplicates USING (seq)
WINDOW by_time AS (PARTITION BY r.vehicle_key ORDER BY r.event_us);

-- Rule 6 compares each record with the last *accepted* one, so a refusal changes what
-- the following records are compared with. It is solved exactly without walking every
-- record: let N(a) be the first record after a whose implied speed from a is within
-- the limit. If a is accepted, the records strictly between a and N(a) are jumps (a
-- stays their reference) and N(a) is the next accepted one. The first record is
-- accepted, so the accepted records are 1, N(1), N(N(1)), ...
-- Almost always N(a) = a + 1. A "break" is a record where it is not; only breaks need
-- N computed, and the walk only needs to hop from break to break: from an accepted
-- record every record up to the next break is accepted, and from a break b the walk
-- continues at N(b).
CREATE OR REPLACE TABLE jump_breaks AS
SELECT vehicle_key, rn, event_us, lat, lon
FROM key_sequence
WHERE next_event_us IS NOT NULL
  AND implied_kmh(lat, lon, event_us, next_lat, next_lon, next_event_us) > jump_limit_kmh(next_mode);

-- N(b) for every break: first among the next 32 records, else (rarely) further on.
CREATE OR REPLACE TABLE jump_landings AS
WITH near AS (
  SELECT b.vehicle_key, b.rn AS break_rn, min(k.rn) AS landing_rn
  FROM (SELECT *, unnest(range(rn + 2, rn + 33)) AS target_rn FROM jump_breaks) b
  JOIN key_sequence k ON k.vehicle_key = b.vehicle_key AND k.rn = b.target_rn
  WHERE implied_kmh(b.lat, b.lon, b.event_us, k.lat, k.lon, k.event_us) <= jump_limit_kmh(k.mode)
  GROUP BY ALL
), far AS (
  SELECT b.vehicle_key, b.rn AS break_rn, min(k.rn) AS landing_rn
  FROM (SELECT * FROM jump_breaks j
        ANTI JOIN near n ON n.vehicle_key = j.vehicle_key AND n.break_rn = j.rn) b
  JOIN key_sequence k ON k.vehicle_key = b.vehicle_key AND k.rn > b.rn + 32
  WHERE implied_kmh(b.lat, b.lon, b.event_us, k.lat, k.lon, k.event_us) <= jump_limit_kmh(k.mode)
  GROUP BY ALL
)
SELECT * FROM near UNION ALL SELECT * FROM far;

-- For every break: N(b), and the first break at or after N(b) (where the walk hops next).
CREATE OR REPLACE TABLE jump_links AS
SELECT l.vehicle_key, l.rn, l.landing_rn, nb.rn AS next_break_rn
FROM (SELECT b.vehicle_key, b.rn, n.landing_rn
      FROM jump_breaks b
      LEFT JOIN jump_landings n ON n.vehicle_key = b.vehicle_key AND n.break_rn = b.rn) l
ASOF LEFT JOIN jump_breaks nb ON l.vehicle_key = nb.vehicle_key AND l.landing_rn <= nb.rn;

-- The walk (from each key's first break, hop to the next break after N(b)) is found by
-- pointer doubling rather than one hop at a time: walk_round.sql runs until a round
-- adds no break, so a key with L breaks on its walk needs about log2(L) rounds.
-- walk_nodes holds the breaks known to be on the walk, hop the 2^k-th successor of
-- every break (NULL past the end of its key).
CREATE OR REPLACE TABLE walk_nodes AS
SELECT vehicle_key, rn FROM jump_links
QUALIFY row_number() OVER (PARTITION BY vehicle_key ORDER BY rn) = 1;

CREATE OR REPLACE TABLE walk_hop AS
SELECT vehicle_key, rn, next_break_rn AS target FROM jump_links;
