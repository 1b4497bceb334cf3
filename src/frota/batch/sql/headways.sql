-- `frota headways` (semantics §7): the tables it keeps in the stream's database, and the
-- statistics per route, direction, day type and local hour. headways.cc fills every table
-- above the statistics marker, then runs the statements after it. Each run replaces what
-- the previous one wrote (the tables are made anew). Times are UTC instants; local_date and hour are the feed's
-- local time; a service date is the GTFS one (its times may pass 24:00).

-- `departures` (every departure found, batch/departures.h) and `headways` (every
-- in-period departure with its headway) are made anew before this file runs, from the
-- table catalog (model/tables.h, whose comments say what each column holds): headways.cc,
-- RegularityTablesSql.

-- Scheduled departures of the served routes on the observed service dates, each with its
-- service period (0, 1, ... in the date's order) and whether the feed could see it
-- (`unobserved`: inside a coverage gap of the route's feed, or outside the span of time
-- the feed was observed).
DROP TABLE IF EXISTS planned_departures;
CREATE TABLE planned_departures (
  route_id VARCHAR NOT NULL,
  direction_id TINYINT,
  service_date DATE NOT NULL,
  day_type VARCHAR NOT NULL,
  departure_time TIMESTAMP NOT NULL,
  local_date DATE NOT NULL,
  hour TINYINT NOT NULL,
  period INTEGER NOT NULL,
  unobserved BOOLEAN NOT NULL
);

-- The service dates the feed was observed on (accepted positions in some minute).
DROP TABLE IF EXISTS observed_dates;
CREATE TABLE observed_dates (
  service_date DATE NOT NULL,
  day_type VARCHAR NOT NULL,
  holiday VARCHAR
);

-- Minutes of planned service per route, direction, service date and local hour: how many
-- the plan had (a service period from its first planned departure to its last plus one
-- planned headway, within the span of time the feed was observed), in how many the
-- route's feed delivered a position, and in how many of those the route itself
-- delivered none (silent while the feed was watching).
DROP TABLE IF EXISTS service_minutes;
CREATE TABLE service_minutes (
  route_id VARCHAR NOT NULL,
  direction_id TINYINT,
  service_date DATE NOT NULL,
  day_type VARCHAR NOT NULL,
  local_date DATE NOT NULL,
  hour TINYINT NOT NULL,
  planned_minutes INTEGER NOT NULL,
  covered_minutes INTEGER NOT NULL,
  silent_minutes INTEGER NOT NULL
);

-- Per feed and local hour in which it delivered anything: the minutes of event time with
-- at least one accepted position.
DROP TABLE IF EXISTS feed_coverage;
CREATE TABLE feed_coverage (
  feed_id VARCHAR NOT NULL,
  local_date DATE NOT NULL,
  hour TINYINT NOT NULL,
  covered_minutes SMALLINT NOT NULL
);

-- Each run of 5 or more minutes (--coverage-gap-minutes) without an accepted position of
-- the feed, between its first and last covered minute; end_time is exclusive.
DROP TABLE IF EXISTS coverage_gaps;
CREATE TABLE coverage_gaps (
  feed_id VARCHAR NOT NULL,
  start_time TIMESTAMP NOT NULL,
  end_time TIMESTAMP NOT NULL,
  minutes INTEGER NOT NULL
);

-- Each run of 5 or more minutes in which a route delivered no position while its feed
-- delivered others and the plan had service on the route; end_time is exclusive. A feed
-- that carries one route cannot tell a silent route from a blind feed: none here.
DROP TABLE IF EXISTS line_silences;
CREATE TABLE line_silences (
  feed_id VARCHAR NOT NULL,
  route_id VARCHAR NOT NULL,
  start_time TIMESTAMP NOT NULL,
  end_time TIMESTAMP NOT NULL,
  minutes INTEGER NOT NULL
);

-- Trips as runs (semantics §4 "trips", regularity/runs.h): each tag run of a vehicle split
-- at its departures, each piece from its departure to its arrival at the pattern's end;
-- one row per trip. route_id and direction_id are the trip's pattern's (its departure's,
-- else its trip's; '' and NULL when unknown); departure_time is NULL for a tag run without
-- a departure. completed: it arrived (a position within 1,000 m of the pattern's last point
-- after one farther from it); shape_share: of its positions within 500 m of the shape;
-- minute_share: of its minutes, first to last, holding a position; conforming:
-- shape_share >= 0.8 and minute_share >= 0.5. completed, shape_share and conforming are
-- NULL when the pattern has no shape. local_date: that of first_time.
DROP TABLE IF EXISTS trip_runs;
CREATE TABLE trip_runs (
  feed_id VARCHAR NOT NULL,
  vehicle_id VARCHAR NOT NULL,
  trip_id VARCHAR NOT NULL,
  trip_start_date VARCHAR NOT NULL,
  route_id VARCHAR NOT NULL,
  direction_id TINYINT,
  departure_time TIMESTAMP,
  first_time TIMESTAMP NOT NULL,
  last_time TIMESTAMP NOT NULL,
  positions INTEGER NOT NULL,
  distance_m DOUBLE NOT NULL,
  completed BOOLEAN,
  shape_share DOUBLE,
  minute_share DOUBLE,
  conforming BOOLEAN,
  local_date DATE NOT NULL
);

-- The GTFS names of the routes reported.
DROP TABLE IF EXISTS headway_routes;
CREATE TABLE headway_routes (
  route_id VARCHAR NOT NULL,
  route_short_name VARCHAR NOT NULL
);

-- Per route and direction; day_type 'all' sums every day type, hour -1 the whole day.
-- departures_planned leaves out the line-days not seen (line_days_not_seen, below), which
-- are counted apart with their planned departures (departures_not_seen).
-- trips_completed and trips_conforming: of the departures found, those whose run in
-- trip_runs was completed, and conforming.
DROP TABLE IF EXISTS headway_summary;
CREATE TABLE headway_summary (
  route_id VARCHAR NOT NULL,
  route_short_name VARCHAR NOT NULL,
  direction_id TINYINT,
  inferred BOOLEAN NOT NULL,
  day_type VARCHAR NOT NULL,
  hour TINYINT NOT NULL,
  service_dates BIGINT NOT NULL,
  planned_service_dates BIGINT NOT NULL,
  departures_found BIGINT NOT NULL,
  departures_planned BIGINT NOT NULL,
  found_ratio DOUBLE,
  median_headway_s DOUBLE,
  p10_headway_s DOUBLE,
  p90_headway_s DOUBLE,
  planned_headway_s DOUBLE,
  bunching_share DOUBLE,
  gap_share DOUBLE,
  cv DOUBLE,
  los VARCHAR,
  excess_wait_s DOUBLE,
  headways_measured BIGINT NOT NULL,
  excluded_service_break BIGINT NOT NULL,
  excluded_coverage_gap BIGINT NOT NULL,
  share_under_60s DOUBLE,
  departures_unobserved BIGINT NOT NULL,
  departures_unplanned BIGINT NOT NULL,
  departures_tagged_late BIGINT NOT NULL,
  coverage_share DOUBLE,
  silent_minutes BIGINT NOT NULL,
  line_days_not_seen BIGINT NOT NULL,
  departures_not_seen BIGINT NOT NULL,
  trips_completed BIGINT NOT NULL,
  trips_conforming BIGINT NOT NULL
);

-- @statistics: the statements below run after headways.cc has filled the tables above.

-- Line-days not seen: a route, direction and service date whose planned service the feed
-- watched (some covered minute) while the route delivered no position at all in it (every
-- covered minute silent). Nothing tells whether such a line ran: a feed that does not
-- carry it that day, a line cut or renamed. Their planned departures are neither found
-- nor missed: left out of `departures_planned` and the found ratio, listed here.
CREATE OR REPLACE TABLE line_days_not_seen AS
SELECT m.route_id, m.direction_id, m.service_date, any_value(m.day_type) AS day_type,
       (SELECT count(*) FROM planned_departures p
        WHERE p.route_id = m.route_id AND p.direction_id IS NOT DISTINCT FROM m.direction_id
          AND p.service_date = m.service_date AND NOT p.unobserved) AS departures_planned
FROM service_minutes m
GROUP BY m.route_id, m.direction_id, m.service_date
HAVING sum(m.covered_minutes) > 0 AND sum(m.covered_minutes) = sum(m.silent_minutes);

INSERT INTO headway_summary
WITH found AS (
  SELECT route_id, dir, coalesce(day_type, 'all') AS day_type,
         coalesce(hour, -1) AS hour,
         count(*) FILTER (WHERE NOT unplanned) AS departures_found,
         count(*) FILTER (WHERE unplanned) AS departures_unplanned,
         count(*) FILTER (WHERE tagged_late) AS departures_tagged_late,
         count(*) FILTER (WHERE trip_id <> '') AS tagged
  FROM (SELECT *, coalesce(direction_id, -1) AS dir FROM departures)
  GROUP BY GROUPING SETS ((route_id, dir), (route_id, dir, hour), (route_id, dir, day_type),
                          (route_id, dir, day_type, hour))
), measured AS (
  -- Only pairs in one service period with the feed watching between them.
  SELECT route_id, dir, coalesce(day_type, 'all') AS day_type,
         coalesce(hour, -1) AS hour,
         count(headway_s) FILTER (WHERE exclusion IS NULL) AS headways_measured,
         count(*) FILTER (WHERE exclusion = 'service_break') AS excluded_service_break,
         count(*) FILTER (WHERE exclusion = 'coverage_gap') AS excluded_coverage_gap,
         quantile_cont(headway_s, 0.5) FILTER (WHERE exclusion IS NULL) AS median_headway_s,
         quantile_cont(headway_s, 0.1) FILTER (WHERE exclusion IS NULL) AS p10_headway_s,
         quantile_cont(headway_s, 0.9) FILTER (WHERE exclusion IS NULL) AS p90_headway_s,
         avg((headway_s < 60)::INTEGER) FILTER (WHERE exclusion IS NULL) AS share_under_60s,
         median(planned_headway_s) FILTER (WHERE exclusion IS NULL AND headway_s IS NOT NULL)
           AS planned_headway_s,
         avg((headway_s < 0.25 * planned_headway_s)::INTEGER) FILTER (WHERE exclusion IS NULL)
           AS bunching_share,
         avg((headway_s > 2 * planned_headway_s)::INTEGER) FILTER (WHERE exclusion IS NULL)
           AS gap_share,
         -- TCQSM headway adherence: sd(actual - planned) / mean(planned).
         stddev_pop(headway_s - planned_headway_s) FILTER (WHERE exclusion IS NULL)
           / avg(planned_headway_s) FILTER (WHERE exclusion IS NULL AND headway_s IS NOT NULL)
           AS cv,
         -- London's excess wait time: AWT - SWT, AWT = sum(h^2) / 2 sum(h) and
         -- SWT = sum(p^2) / 2 sum(p) over the same measured headways.
         sum(headway_s * headway_s) FILTER (WHERE exclusion IS NULL AND planned_headway_s > 0)
           / (2 * sum(headway_s) FILTER (WHERE exclusion IS NULL AND planned_headway_s > 0))
         - sum(planned_headway_s * planned_headway_s)
             FILTER (WHERE exclusion IS NULL AND headway_s IS NOT NULL AND planned_headway_s > 0)
           / (2 * sum(planned_headway_s)
                FILTER (WHERE exclusion IS NULL AND headway_s IS NOT NULL AND planned_headway_s > 0))
           AS excess_wait_s
  FROM (SELECT *, coalesce(direction_id, -1) AS dir FROM headways)
  GROUP BY GROUPING SETS ((route_id, dir), (route_id, dir, hour), (route_id, dir, day_type),
                          (route_id, dir, day_type, hour))
), planned AS (
  SELECT route_id, dir, coalesce(day_type, 'all') AS day_type,
         coalesce(hour, -1) AS hour,
         count(*) FILTER (WHERE NOT unobserved AND NOT not_seen) AS departures_planned,
         count(*) FILTER (WHERE unobserved) AS departures_unobserved,
         count(DISTINCT service_date) AS planned_service_dates,
         count(DISTINCT service_date) FILTER (WHERE not_seen AND NOT unobserved)
           AS line_days_not_seen,
         count(*) FILTER (WHERE not_seen AND NOT unobserved) AS departures_not_seen
  FROM (SELECT p.*, coalesce(p.direction_id, -1) AS dir, n.route_id IS NOT NULL AS not_seen
        FROM planned_departures p
        LEFT JOIN line_days_not_seen n
          ON n.route_id = p.route_id AND n.direction_id IS NOT DISTINCT FROM p.direction_id
         AND n.service_date = p.service_date)
  GROUP BY GROUPING SETS ((route_id, dir), (route_id, dir, hour), (route_id, dir, day_type),
                          (route_id, dir, day_type, hour))
), minutes AS (
  SELECT route_id, dir, coalesce(day_type, 'all') AS day_type,
         coalesce(hour, -1) AS hour,
         sum(planned_minutes) AS planned_minutes, sum(covered_minutes) AS covered_minutes,
         sum(silent_minutes) AS silent_minutes
  FROM (SELECT *, coalesce(direction_id, -1) AS dir FROM service_minutes)
  GROUP BY GROUPING SETS ((route_id, dir), (route_id, dir, hour), (route_id, dir, day_type),
                          (route_id, dir, day_type, hour))
), runs AS (
  SELECT route_id, dir, coalesce(day_type, 'all') AS day_type,
         coalesce(hour, -1) AS hour,
         count(*) FILTER (WHERE completed) AS trips_completed,
         count(*) FILTER (WHERE conforming) AS trips_conforming
  FROM (SELECT d.route_id, coalesce(d.direction_id, -1) AS dir, d.day_type, d.hour,
               r.completed, r.conforming
        FROM trip_runs r
        JOIN departures d ON d.feed_id = r.feed_id AND d.vehicle_id = r.vehicle_id
         AND d.departure_time = r.departure_time
        WHERE NOT d.unplanned)
  GROUP BY GROUPING SETS ((route_id, dir), (route_id, dir, hour), (route_id, dir, day_type),
                          (route_id, dir, day_type, hour))
), keys AS (
  SELECT route_id, dir, day_type, hour FROM found
  UNION SELECT route_id, dir, day_type, hour FROM planned
  UNION SELECT route_id, dir, day_type, hour FROM measured
), routes AS (
  -- A route and direction is `inferred` when none of its departures carried a trip id.
  SELECT route_id, dir, tagged = 0 AS inferred FROM found
  WHERE day_type = 'all' AND hour = -1
), dates AS (
  SELECT coalesce(day_type, 'all') AS day_type, count(*) AS service_dates
  FROM observed_dates GROUP BY GROUPING SETS ((), (day_type))
)
SELECT k.route_id, coalesce(r.route_short_name, ''), nullif(k.dir, -1),
       coalesce(ro.inferred, false), k.day_type, k.hour,
       coalesce(d.service_dates, 0), coalesce(p.planned_service_dates, 0),
       coalesce(f.departures_found, 0), coalesce(p.departures_planned, 0),
       f.departures_found / nullif(p.departures_planned, 0),
       s.median_headway_s, s.p10_headway_s, s.p90_headway_s, s.planned_headway_s,
       s.bunching_share, s.gap_share, s.cv,
       -- TCQSM headway-adherence bands of cv (see docs/semantics-notes.md).
       CASE WHEN s.cv IS NULL THEN NULL
            WHEN round(s.cv, 2) <= 0.21 THEN 'A'
            WHEN round(s.cv, 2) <= 0.30 THEN 'B'
            WHEN round(s.cv, 2) <= 0.39 THEN 'C'
            WHEN round(s.cv, 2) <= 0.52 THEN 'D'
            WHEN round(s.cv, 2) <= 0.74 THEN 'E'
            ELSE 'F' END,
       s.excess_wait_s,
       coalesce(m.headways_measured, 0), coalesce(m.excluded_service_break, 0),
       coalesce(m.excluded_coverage_gap, 0), s.share_under_60s,
       coalesce(p.departures_unobserved, 0), coalesce(f.departures_unplanned, 0),
       coalesce(f.departures_tagged_late, 0),
       mi.covered_minutes / nullif(mi.planned_minutes, 0),
       coalesce(mi.silent_minutes, 0),
       coalesce(p.line_days_not_seen, 0), coalesce(p.departures_not_seen, 0),
       coalesce(ru.trips_completed, 0), coalesce(ru.trips_conforming, 0)
FROM keys k
LEFT JOIN found f USING (route_id, dir, day_type, hour)
LEFT JOIN measured m USING (route_id, dir, day_type, hour)
-- The distribution's statistics need `min_headways` measured headways (headways.cc sets
-- headway_options); with fewer, only the counts are given.
LEFT JOIN (SELECT m2.* FROM measured m2, headway_options o
           WHERE m2.headways_measured >= o.min_headways) s
  USING (route_id, dir, day_type, hour)
LEFT JOIN planned p USING (route_id, dir, day_type, hour)
LEFT JOIN minutes mi USING (route_id, dir, day_type, hour)
LEFT JOIN runs ru USING (route_id, dir, day_type, hour)
LEFT JOIN routes ro ON ro.route_id = k.route_id AND ro.dir = k.dir
LEFT JOIN headway_routes r ON r.route_id = k.route_id
LEFT JOIN dates d ON d.day_type = k.day_type;
