-- `frota headways` (semantics §7): the tables it keeps in the stream's database, and the
-- statistics per route, direction, day type and local hour. headways.cc fills
-- `departures`, `planned_departures`, `observed_dates` and `headways` (each departure
-- with the one before it on its service date and the planned headway at it), then runs
-- the statements after the tables. Each run replaces what the previous one wrote.

CREATE TABLE IF NOT EXISTS departures (
  feed_id VARCHAR NOT NULL,
  vehicle_id VARCHAR NOT NULL,
  feed_route_id VARCHAR NOT NULL,
  route_id VARCHAR NOT NULL,
  direction_id TINYINT,
  trip_id VARCHAR NOT NULL,
  shape_id VARCHAR NOT NULL,
  service_date DATE NOT NULL,
  departure_time TIMESTAMP NOT NULL,
  inferred BOOLEAN NOT NULL,
  distance_m DOUBLE NOT NULL
);

-- Scheduled departures of the served routes in the hours the feed was observed.
CREATE TABLE IF NOT EXISTS planned_departures (
  route_id VARCHAR NOT NULL,
  direction_id TINYINT,
  service_date DATE NOT NULL,
  day_type VARCHAR NOT NULL,
  departure_time TIMESTAMP NOT NULL,
  local_date DATE NOT NULL,
  hour TINYINT NOT NULL
);

-- The service dates the feed was observed on (accepted positions in some hour).
CREATE TABLE IF NOT EXISTS observed_dates (
  service_date DATE NOT NULL,
  day_type VARCHAR NOT NULL,
  holiday VARCHAR
);

-- Every departure with its headway: the time since the previous departure of its route
-- and direction on its service date (NULL for the first), and the planned headway at it
-- (NULL when nothing is planned then).
CREATE TABLE IF NOT EXISTS headways (
  route_id VARCHAR NOT NULL,
  direction_id TINYINT,
  service_date DATE NOT NULL,
  day_type VARCHAR NOT NULL,
  departure_time TIMESTAMP NOT NULL,
  local_date DATE NOT NULL,
  hour TINYINT NOT NULL,
  vehicle_id VARCHAR NOT NULL,
  inferred BOOLEAN NOT NULL,
  headway_s DOUBLE,
  planned_headway_s DOUBLE
);

-- The GTFS names of the routes reported.
CREATE TABLE IF NOT EXISTS headway_routes (
  route_id VARCHAR NOT NULL,
  route_short_name VARCHAR NOT NULL
);

-- Per route and direction; day_type 'all' sums every day type, hour -1 the whole day.
CREATE TABLE IF NOT EXISTS headway_summary (
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
  excess_wait_s DOUBLE
);

-- @statistics: the statements below run after headways.cc has filled the tables above.
DELETE FROM headway_summary;

INSERT INTO headway_summary
WITH served AS (
  -- Route-directions with a departure found or planned, and their names.
  SELECT route_id, direction_id, bool_or(inferred) AS inferred
  FROM (SELECT route_id, direction_id, inferred FROM departures
        UNION ALL SELECT route_id, direction_id, NULL FROM planned_departures)
  GROUP BY ALL
), found AS (
  SELECT route_id, direction_id, coalesce(day_type, 'all') AS day_type,
         coalesce(hour, -1) AS hour,
         count(*) AS departures_found,
         quantile_cont(headway_s, 0.5) AS median_headway_s,
         quantile_cont(headway_s, 0.1) AS p10_headway_s,
         quantile_cont(headway_s, 0.9) AS p90_headway_s,
         median(planned_headway_s) AS planned_headway_s,
         avg((headway_s < 0.25 * planned_headway_s)::INTEGER) AS bunching_share,
         avg((headway_s > 2 * planned_headway_s)::INTEGER) AS gap_share,
         -- TCQSM headway adherence: sd(actual - planned) / mean(planned).
         stddev_pop(headway_s - planned_headway_s)
           / avg(planned_headway_s) FILTER (WHERE headway_s IS NOT NULL) AS cv,
         -- Excess wait time: average wait of riders arriving at random, sum(h^2) / 2 sum(h),
         -- minus half the planned headway.
         sum(headway_s * headway_s) FILTER (WHERE planned_headway_s IS NOT NULL)
           / (2 * sum(headway_s) FILTER (WHERE planned_headway_s IS NOT NULL))
           - avg(planned_headway_s) FILTER (WHERE headway_s IS NOT NULL) / 2 AS excess_wait_s
  FROM headways
  GROUP BY GROUPING SETS ((route_id, direction_id), (route_id, direction_id, hour),
                          (route_id, direction_id, day_type),
                          (route_id, direction_id, day_type, hour))
), planned AS (
  SELECT route_id, direction_id, coalesce(day_type, 'all') AS day_type,
         coalesce(hour, -1) AS hour, count(*) AS departures_planned,
         count(DISTINCT service_date) AS planned_service_dates
  FROM planned_departures
  GROUP BY GROUPING SETS ((route_id, direction_id), (route_id, direction_id, hour),
                          (route_id, direction_id, day_type),
                          (route_id, direction_id, day_type, hour))
), dates AS (
  SELECT coalesce(day_type, 'all') AS day_type, count(*) AS service_dates
  FROM observed_dates GROUP BY GROUPING SETS ((), (day_type))
), merged AS (
  SELECT coalesce(f.route_id, p.route_id) AS route_id,
         coalesce(f.direction_id, p.direction_id) AS direction_id,
         coalesce(f.day_type, p.day_type) AS day_type, coalesce(f.hour, p.hour) AS hour,
         f.*  EXCLUDE (route_id, direction_id, day_type, hour),
         p.departures_planned, p.planned_service_dates
  FROM found f FULL OUTER JOIN planned p
    ON f.route_id = p.route_id AND f.direction_id IS NOT DISTINCT FROM p.direction_id
       AND f.day_type = p.day_type AND f.hour = p.hour
)
SELECT m.route_id, coalesce(r.route_short_name, ''), m.direction_id,
       coalesce(s.inferred, false), m.day_type, m.hour,
       coalesce(d.service_dates, 0), coalesce(m.planned_service_dates, 0),
       coalesce(m.departures_found, 0), coalesce(m.departures_planned, 0),
       m.departures_found / m.departures_planned,
       m.median_headway_s, m.p10_headway_s, m.p90_headway_s, m.planned_headway_s,
       m.bunching_share, m.gap_share, m.cv,
       -- TCQSM headway-adherence bands of cv (see docs/semantics-notes.md).
       CASE WHEN m.cv IS NULL THEN NULL
            WHEN round(m.cv, 2) <= 0.21 THEN 'A'
            WHEN round(m.cv, 2) <= 0.30 THEN 'B'
            WHEN round(m.cv, 2) <= 0.39 THEN 'C'
            WHEN round(m.cv, 2) <= 0.52 THEN 'D'
            WHEN round(m.cv, 2) <= 0.74 THEN 'E'
            ELSE 'F' END,
       m.excess_wait_s
FROM merged m
LEFT JOIN served s ON s.route_id = m.route_id AND s.direction_id IS NOT DISTINCT FROM m.direction_id
LEFT JOIN headway_routes r ON r.route_id = m.route_id
LEFT JOIN dates d ON d.day_type = m.day_type;
