-- The migration to schema version 2, as it was written for it: moves the silver rows of
-- version 1, given as text (tables positions_text and rejected_text), into the version 2
-- tables positions_data and rejected_data: new strings get the next ids, modes and
-- reasons their numbers. (silver_from_text.sql does the same for the current version.) A row whose mode or reason has no number, or with a NULL where
-- the tables want a value, is an error (the outer joins give NULL, the columns refuse
-- it), never a row left out.

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

INSERT INTO positions_data
SELECT f.id, v.id, m.id, r.id, t.id, d.id, st.id, p.direction_id, p.lat, p.lon,
       p.reported_speed_kmh, p.bearing_deg, p.altitude_m, p.on_ground, p.event_time,
       p.ingest_time, p.event_time_from_header, src.id, p.source_offset
FROM positions_text p
LEFT JOIN strings f ON f.text = p.feed_id
LEFT JOIN strings v ON v.text = p.vehicle_id
LEFT JOIN modes m ON m.name = p.mode
LEFT JOIN strings r ON r.text = p.route_id
LEFT JOIN strings t ON t.text = p.trip_id
LEFT JOIN strings d ON d.text = p.trip_start_date
LEFT JOIN strings st ON st.text = p.trip_start_time
LEFT JOIN strings src ON src.text = p.source;

INSERT INTO rejected_data
SELECT f.id, v.id, x.id, j.event_time, j.ingest_time, src.id, j.source_offset, j.detail
FROM rejected_text j
LEFT JOIN strings f ON f.text = j.feed_id
LEFT JOIN strings v ON v.text = j.vehicle_id
LEFT JOIN reject_reasons x ON x.name = j.reason
LEFT JOIN strings src ON src.text = j.source;

DROP TABLE positions_text;
DROP TABLE rejected_text;
