-- Moves silver rows given as text (tables positions_text and rejected_text, with the
-- columns of the views `positions` and `rejected`) into the tables of the current schema
-- (version 3): new strings get the next ids, new position labels the next label ids,
-- modes and reasons their numbers; positions go to positions_data, refusals to
-- rejected_data with their detail as given. Used by the copy of a PostgreSQL database
-- into DuckDB and by tests (sink::AddSilverText). A row whose mode or reason has no
-- number, or with a NULL where the tables want a value, is an error (the outer joins give
-- NULL, the columns refuse it), never a row left out.

INSERT INTO strings
SELECT (SELECT max(id) FROM strings) + row_number() OVER (ORDER BY text), text
FROM (
  SELECT feed_id AS text FROM positions_text UNION SELECT vehicle_id FROM positions_text
  UNION SELECT route_id FROM positions_text UNION SELECT trip_id FROM positions_text
  UNION SELECT trip_start_date FROM positions_text UNION SELECT trip_start_time FROM positions_text
  UNION SELECT source FROM positions_text
  UNION SELECT feed_id FROM rejected_text UNION SELECT vehicle_id FROM rejected_text
  UNION SELECT source FROM rejected_text
) t
WHERE NOT EXISTS (SELECT 1 FROM strings s WHERE s.text = t.text);

SELECT CASE WHEN count(*) > 0 THEN error('silver rows with a mode frota does not number: ' ||
                                         string_agg(DISTINCT mode, ', ')) END
FROM positions_text WHERE mode NOT IN (SELECT name FROM modes);
SELECT CASE WHEN count(*) > 0 THEN error('refusals with a reason frota does not number: ' ||
                                         string_agg(DISTINCT reason, ', ')) END
FROM rejected_text WHERE reason NOT IN (SELECT name FROM reject_reasons);

-- The rows with their texts as ids (a text the strings table lacks is NULL, and refused).
CREATE TEMP TABLE positions_ids AS
SELECT f.id AS feed_id, v.id AS vehicle_id, m.id AS mode, r.id AS route_id, t.id AS trip_id,
       d.id AS trip_start_date, st.id AS trip_start_time, p.direction_id, p.lat, p.lon,
       p.reported_speed_kmh, p.bearing_deg, p.altitude_m, p.on_ground, p.event_time,
       p.ingest_time, p.event_time_from_header, src.id AS source, p.source_offset
FROM positions_text p
LEFT JOIN strings f ON f.text = p.feed_id
LEFT JOIN strings v ON v.text = p.vehicle_id
LEFT JOIN modes m ON m.name = p.mode
LEFT JOIN strings r ON r.text = p.route_id
LEFT JOIN strings t ON t.text = p.trip_id
LEFT JOIN strings d ON d.text = p.trip_start_date
LEFT JOIN strings st ON st.text = p.trip_start_time
LEFT JOIN strings src ON src.text = p.source;

INSERT INTO position_labels
SELECT (SELECT coalesce(max(id), 0) FROM position_labels)
         + row_number() OVER (ORDER BY feed_id, vehicle_id, mode, route_id, trip_id,
                                       trip_start_date, trip_start_time, direction_id),
       feed_id, vehicle_id, mode, route_id, trip_id, trip_start_date, trip_start_time,
       direction_id
FROM (SELECT DISTINCT feed_id, vehicle_id, mode, route_id, trip_id, trip_start_date,
                      trip_start_time, direction_id
      FROM positions_ids) n
WHERE NOT EXISTS (
  SELECT 1 FROM position_labels l
  WHERE l.feed_id = n.feed_id AND l.vehicle_id = n.vehicle_id AND l.mode = n.mode
    AND l.route_id = n.route_id AND l.trip_id = n.trip_id
    AND l.trip_start_date = n.trip_start_date AND l.trip_start_time = n.trip_start_time
    AND l.direction_id IS NOT DISTINCT FROM n.direction_id);

-- A label of NULL ids matches none and leaves `label` NULL: the column refuses it.
INSERT INTO positions_data
SELECT l.id, p.lat, p.lon, p.reported_speed_kmh, p.bearing_deg, p.altitude_m, p.on_ground,
       p.event_time, p.ingest_time, p.event_time_from_header, p.source, p.source_offset
FROM positions_ids p
LEFT JOIN position_labels l
  ON l.feed_id = p.feed_id AND l.vehicle_id = p.vehicle_id AND l.mode = p.mode
 AND l.route_id = p.route_id AND l.trip_id = p.trip_id
 AND l.trip_start_date = p.trip_start_date AND l.trip_start_time = p.trip_start_time
 AND l.direction_id IS NOT DISTINCT FROM p.direction_id;

DROP TABLE positions_ids;

INSERT INTO rejected_data
SELECT f.id, v.id, x.id, j.event_time, j.ingest_time, src.id, j.source_offset, j.detail
FROM rejected_text j
LEFT JOIN strings f ON f.text = j.feed_id
LEFT JOIN strings v ON v.text = j.vehicle_id
LEFT JOIN reject_reasons x ON x.name = j.reason
LEFT JOIN strings src ON src.text = j.source;

DROP TABLE positions_text;
DROP TABLE rejected_text;
