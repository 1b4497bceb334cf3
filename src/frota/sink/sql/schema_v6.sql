-- Version 6: rules, the thresholds of semantics.md sections 2-3 this database's results
-- were made with (job/rules.h names the keys; seconds or km/h), so that a reader
-- (`frota reconcile`, a person) knows which rules made them. The first run to write
-- into the database records its rules; a later run with other rules is refused. A
-- database that already held results was made by a frota whose rules were compiled in:
-- it gets those values.

CREATE TABLE rules (
  key VARCHAR PRIMARY KEY,
  value DOUBLE NOT NULL
);

INSERT INTO rules
SELECT * FROM (VALUES ('future_tolerance_s', 30.0), ('stale_after_s', 300.0),
                      ('max_speed_kmh.bus', 120.0), ('max_speed_kmh.brt', 120.0),
                      ('max_speed_kmh.rail', 120.0), ('max_speed_kmh.ferry', 120.0),
                      ('max_speed_kmh.aircraft', 1300.0), ('max_speed_kmh.other', 120.0),
                      ('watermark_slack_s', 30.0), ('idle_timeout_s', 120.0)) AS v(key, value)
WHERE EXISTS (SELECT 1 FROM batches);
