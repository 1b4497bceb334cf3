-- Helpers of the batch recomputation: the project's distance and the text forms the
-- stream writes. Every number of the contract is a variable (SET VARIABLE, from
-- job::JobConfig), read with getvariable(), so this SQL has no copy of a default.

-- Haversine distance in metres on the sphere of radius 6,371,008.8 m (semantics §2),
-- written operation by operation like geo::HaversineM so that both give the same bits:
-- radians as degrees * (pi / 180), half-angle sines squared by multiplication, `a`
-- clamped to [0, 1], then 2R * asin(sqrt(a)).
CREATE OR REPLACE MACRO haversine_m(lat1, lon1, lat2, lon2) AS
  (2 * 6371008.8::DOUBLE) * asin(sqrt(greatest(0.0::DOUBLE, least(1.0::DOUBLE,
      sin((lat2 * (pi() / 180.0::DOUBLE) - lat1 * (pi() / 180.0::DOUBLE)) / 2)
    * sin((lat2 * (pi() / 180.0::DOUBLE) - lat1 * (pi() / 180.0::DOUBLE)) / 2)
    + cos(lat1 * (pi() / 180.0::DOUBLE)) * cos(lat2 * (pi() / 180.0::DOUBLE))
      * sin((lon2 - lon1) * (pi() / 180.0::DOUBLE) / 2)
      * sin((lon2 - lon1) * (pi() / 180.0::DOUBLE) / 2)))));

-- Segment lengths are whole millimetres, rounded half away from zero (llround).
CREATE OR REPLACE MACRO millimetres(metres) AS round(metres * 1000)::BIGINT;

-- Rule 6: the speed implied by moving from (lat1, lon1) at t1 to (lat2, lon2) at t2
-- (microseconds), computed as the stream does: metres / seconds * 3.6.
CREATE OR REPLACE MACRO implied_kmh(lat1, lon1, t1, lat2, lon2, t2) AS
  haversine_m(lat1, lon1, lat2, lon2) / ((t2 - t1)::DOUBLE / 1000000.0::DOUBLE) * 3.6::DOUBLE;

-- Rule 6's limit for the mode of the position being judged (rule max_speed_kmh.<mode>).
CREATE OR REPLACE MACRO jump_limit_kmh(mode) AS
  CASE mode WHEN 'bus' THEN getvariable('max_speed_kmh_bus')
            WHEN 'brt' THEN getvariable('max_speed_kmh_brt')
            WHEN 'rail' THEN getvariable('max_speed_kmh_rail')
            WHEN 'ferry' THEN getvariable('max_speed_kmh_ferry')
            WHEN 'aircraft' THEN getvariable('max_speed_kmh_aircraft')
            ELSE getvariable('max_speed_kmh_other') END;

-- A speed segment's plausible top speed for its mode (rule max_segment_speed_kmh.<mode>).
CREATE OR REPLACE MACRO segment_limit_kmh(mode) AS
  CASE mode WHEN 'bus' THEN getvariable('max_segment_speed_kmh_bus')
            WHEN 'brt' THEN getvariable('max_segment_speed_kmh_brt')
            WHEN 'rail' THEN getvariable('max_segment_speed_kmh_rail')
            WHEN 'ferry' THEN getvariable('max_segment_speed_kmh_ferry')
            WHEN 'aircraft' THEN getvariable('max_segment_speed_kmh_aircraft')
            ELSE getvariable('max_segment_speed_kmh_other') END;

-- Floor division of microseconds (correct for instants before 1970 too).
CREATE OR REPLACE MACRO floor_div(a, b) AS (a - (((a % b) + b) % b)) // b;

-- An instant (microseconds since the epoch) as base::FormatIso8601 writes it:
-- "2022-06-30T06:34:51Z", with ".123456" only when there is a fraction.
CREATE OR REPLACE MACRO iso8601(us) AS
  strftime(make_timestamp(us), '%Y-%m-%dT%H:%M:%S')
  || CASE WHEN ((us % 1000000) + 1000000) % 1000000 <> 0
          THEN printf('.%06d', ((us % 1000000) + 1000000) % 1000000) ELSE '' END
  || 'Z';
