-- Rules 5 (duplicate) and 6 (jump) over each key's records in event-time order
-- (semantics §2-3). Reads late_records, input_positions, sources; writes
-- `duplicates`, `key_sequence` and the jump walk's tables that key_results.sql reads.

-- Rule 5's tie-break: "first in source order" is by source name, then offset.
CREATE OR REPLACE TABLE source_ranks AS
SELECT source_id, name, row_number() OVER (ORDER BY name) AS name_rank FROM sources;

-- The records released to the jobs (passed rules 1-4 and not late), with what rules 5
-- and 6 need: the key, the time, the place and the jump limit of the record's mode. The
-- other columns are joined back by seq for the accepted ones only (key_results.sql).
--
-- Rule 5: a record with the key and event time of one released before it. Released in
-- event-time order, equal times meet; the first by (source name, offset) stays. So in
-- each key's records ordered by (event time, source name, offset), a record whose
-- predecessor has the same event time is a duplicate.
CREATE OR REPLACE TABLE released AS
SELECT seq, vehicle_key, event_us, lat, lon, jump_limit_kmh,
       coalesce(lag(event_us) OVER (PARTITION BY vehicle_key
                                    ORDER BY event_us, name_rank, source_offset) = event_us,
                false) AS duplicate
FROM (SELECT p.seq, p.vehicle_key, p.event_us, r.name_rank, p.source_offset, p.lat, p.lon,
             jump_limit_kmh(p.mode) AS jump_limit_kmh
      FROM input_positions p
      JOIN source_ranks r USING (source_id)
      ANTI JOIN late_records l USING (seq)
      WHERE record_reason(p.event_us, p.ingest_us, p.inside_area) IS NULL);

CREATE OR REPLACE TABLE duplicates AS
SELECT seq, event_us FROM released WHERE duplicate;

-- Each key's remaining records numbered 1, 2, ... in event-time order (times are now
-- distinct per key), with the neighbours' time and place.
CREATE OR REPLACE TABLE key_sequence AS
SELECT seq, vehicle_key, event_us, lat, lon, jump_limit_kmh,
       row_number() OVER by_time AS rn,
       lag(event_us) OVER by_time AS prev_event_us,
       lag(lat) OVER by_time AS prev_lat,
       lag(lon) OVER by_time AS prev_lon,
       lead(event_us) OVER by_time AS next_event_us,
       lead(lat) OVER by_time AS next_lat,
       lead(lon) OVER by_time AS next_lon,
       lead(jump_limit_kmh) OVER by_time AS next_jump_limit_kmh
FROM released
WHERE NOT duplicate
WINDOW by_time AS (PARTITION BY vehicle_key ORDER BY event_us);

-- The 12 M released rows are not needed any more.
DROP TABLE released;

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
  AND implied_kmh(lat, lon, event_us, next_lat, next_lon, next_event_us) > next_jump_limit_kmh;

-- N(b) for every break: first among the next 32 records, else (rarely) further on.
CREATE OR REPLACE TABLE jump_landings AS
WITH near AS (
  SELECT b.vehicle_key, b.rn AS break_rn, min(k.rn) AS landing_rn
  FROM (SELECT *, unnest(range(rn + 2, rn + 33)) AS target_rn FROM jump_breaks) b
  JOIN key_sequence k ON k.vehicle_key = b.vehicle_key AND k.rn = b.target_rn
  WHERE implied_kmh(b.lat, b.lon, b.event_us, k.lat, k.lon, k.event_us) <= k.jump_limit_kmh
  GROUP BY ALL
), far AS (
  SELECT b.vehicle_key, b.rn AS break_rn, min(k.rn) AS landing_rn
  FROM (SELECT * FROM jump_breaks j
        ANTI JOIN near n ON n.vehicle_key = j.vehicle_key AND n.break_rn = j.rn) b
  JOIN key_sequence k ON k.vehicle_key = b.vehicle_key AND k.rn > b.rn + 32
  WHERE implied_kmh(b.lat, b.lon, b.event_us, k.lat, k.lon, k.event_us) <= k.jump_limit_kmh
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
