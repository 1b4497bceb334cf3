// The regularity tables on a simulated day, written by hand where the `frota headways`
// of the build under test does not write them: an `exclusion` column with a
// feed gap (07:30–07:50 local) and a planned break of 8 h on one route, the same route's
// direction-0 headways again on a Saturday (×1.5), a line silence (08:10–08:25 local), and
// covered minutes per feed and hour. The rows are added to the tables a newer `frota
// headways` wrote too (columns named), so the tests' expectations hold either way.
//
//   node regularity_fixture.mjs DB.duckdb ROUTE     (SQL_TOOL from FROTA_SQL_TOOL or argv[4])
import { spawnSync } from "node:child_process";

const GAP = ["2024-06-05 10:30:00", "2024-06-05 10:50:00"];  // UTC; 07:30–07:50 in Rio
const SILENCE = ["2024-06-05 11:10:00", "2024-06-05 11:25:00"];

function q(text) {
  return "'" + String(text).replace(/'/g, "''") + "'";
}

export function addRegularityTables(sqlTool, db, route) {
  const read = (query) => {
    const r = spawnSync(sqlTool, [db, query], { encoding: "utf8" });
    if (r.status !== 0) throw new Error(`dashboard_sql failed: ${r.stderr}\n${query}`);
    return JSON.parse(r.stdout);
  };
  const exists = (table, column) => read(`SELECT count(*) FROM information_schema.columns WHERE table_name = ${q(table)}
    AND column_name = ${q(column)}`)[0][0] !== "0";
  const newer = exists("headways", "exclusion");
  const feed = read("SELECT min(feed_id) FROM positions")[0][0];
  const R = q(route);
  // A feed_coverage a newer headways wrote stays as it is (its hours are the feed's own).
  const coverage = exists("feed_coverage", "covered_minutes") ? "" : `
    CREATE TABLE feed_coverage (feed_id VARCHAR, local_date DATE, hour TINYINT, covered_minutes SMALLINT);
    INSERT INTO feed_coverage SELECT ${q(feed)}, DATE '2024-06-05', h, CASE WHEN h = 7 THEN 40 ELSE 60 END
      FROM range(6, 10) t(h);`;
  const cols = "route_id, direction_id, service_date, day_type, departure_time, local_date, hour, vehicle_id, inferred, headway_s, planned_headway_s, exclusion";
  const sql = `
    ${newer ? "" : "ALTER TABLE headways ADD COLUMN exclusion VARCHAR;"}
    UPDATE headways SET exclusion = 'coverage_gap' WHERE headway_s IS NOT NULL AND exclusion IS NULL
      AND departure_time > TIMESTAMP '${GAP[0]}' AND departure_time - to_seconds(headway_s) <= TIMESTAMP '${GAP[1]}';
    INSERT INTO headways (${cols}) SELECT route_id, direction_id, service_date, day_type, departure_time + INTERVAL 1 SECOND,
        local_date, hour, vehicle_id, inferred, 28800, planned_headway_s, 'service_break'
      FROM headways WHERE route_id = ${R} AND headway_s IS NOT NULL AND exclusion IS NULL
      ORDER BY departure_time, direction_id LIMIT 1;
    INSERT INTO headways (${cols}) SELECT route_id, direction_id, service_date + 3, 'saturday', departure_time + INTERVAL 3 DAY,
        local_date + 3, hour, vehicle_id, inferred, round(headway_s * 1.5), planned_headway_s, NULL
      FROM headways WHERE route_id = ${R} AND direction_id = 0 AND headway_s IS NOT NULL AND exclusion IS NULL;
    CREATE TABLE IF NOT EXISTS coverage_gaps (feed_id VARCHAR, start_time TIMESTAMP, end_time TIMESTAMP, minutes INTEGER);
    INSERT INTO coverage_gaps (feed_id, start_time, end_time, minutes) VALUES (${q(feed)}, TIMESTAMP '${GAP[0]}', TIMESTAMP '${GAP[1]}', 20);
    CREATE TABLE IF NOT EXISTS line_silences (feed_id VARCHAR, route_id VARCHAR, start_time TIMESTAMP, end_time TIMESTAMP, minutes INTEGER);
    INSERT INTO line_silences (feed_id, route_id, start_time, end_time, minutes) VALUES (${q(feed)}, ${R}, TIMESTAMP '${SILENCE[0]}', TIMESTAMP '${SILENCE[1]}', 15);
    ${coverage}`;
  const r = spawnSync(sqlTool, ["--write", db, sql], { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`dashboard_sql --write failed: ${r.stderr}`);
  return !newer;
}

if (process.argv[1] && process.argv[1].endsWith("regularity_fixture.mjs")) {
  const [db, route, tool] = process.argv.slice(2);
  console.log(addRegularityTables(tool || process.env.FROTA_SQL_TOOL, db, route) ? "added" : "added to a newer headways");
}
