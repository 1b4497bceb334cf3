// Browser test of `frota serve`'s live page in Debian's headless Chromium (playwright-core).
//
// A simulated morning is replayed with the frota of the build tree and its headways
// computed; a vehicle's id and route are made hostile (markup and script in the strings)
// and the `alerts` table of the streaming jobs' contract is made. serve_fixture serves
// the database as `frota serve --db` does and runs SQL sent on its stdin beside it, so
// while the page is open the test moves a vehicle and raises an alert, and checks that
// the page shows both without a reload, keeps every hostile string as text, names the
// as-of time, and logs no error. Screenshots go to BUILD/test-artifacts/serve/.
//
// Environment: FROTA_BINARY_DIR, FROTA_SOURCE_DIR, FROTA_SQL_TOOL (dashboard_sql),
// FROTA_SERVE_FIXTURE (serve_fixture), FROTA_CHROMIUM.
import { chromium } from "playwright-core";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import readline from "node:readline";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const SOURCE = process.env.FROTA_SOURCE_DIR || path.resolve(here, "../..");
const BUILD = process.env.FROTA_BINARY_DIR || path.join(SOURCE, "build/ci");
const FROTA = path.join(BUILD, "frota");
const SQL_TOOL = process.env.FROTA_SQL_TOOL || path.join(BUILD, "tests/dashboard_sql");
const FIXTURE = process.env.FROTA_SERVE_FIXTURE || path.join(BUILD, "tests/serve_fixture");
const CHROMIUM = process.env.FROTA_CHROMIUM || "/usr/bin/chromium";
const ARTIFACTS = path.join(BUILD, "test-artifacts", "serve");
const WORK = path.join(BUILD, "test-tmp", "serve-browser");
const HOSTILE_VEHICLE = '<img src=x onerror="document.body.dataset.pwned=1">';
const HOSTILE_ROUTE = '</script><b id="pwned">x</b><script>document.body.dataset.pwned=2</script>';

function run(command, args) {
  const r = spawnSync(command, args, { encoding: "utf8", maxBuffer: 1 << 28 });
  if (r.status !== 0) throw new Error(`${path.basename(command)} ${args.join(" ")} exited ${r.status}\n${r.stderr}`);
  return r.stdout;
}
const frota = (...args) => run(FROTA, ["-q", ...args]);
const sql = (db, query) => JSON.parse(run(SQL_TOOL, [db, query]));
const write = (db, statements) => run(SQL_TOOL, ["--write", db, statements]);
const quote = (text) => "'" + String(text).replace(/'/g, "''") + "'";
const ALERTS_DDL = "CREATE TABLE IF NOT EXISTS alerts (alert_id VARCHAR NOT NULL PRIMARY KEY, kind VARCHAR NOT NULL, " +
  "feed_id VARCHAR NOT NULL, route_id VARCHAR NOT NULL, direction_id TINYINT, service_date DATE, " +
  "start_time TIMESTAMP NOT NULL, end_time TIMESTAMP, raised_at TIMESTAMP NOT NULL, closed_at TIMESTAMP, " +
  "planned_headway_s DOUBLE, actual_headway_s DOUBLE, vehicles VARCHAR NOT NULL)";

// The fixture: "port N" first, then one answer line per statement sent.
class Fixture {
  constructor(db) {
    this.child = spawn(FIXTURE, [db], { stdio: ["pipe", "pipe", "inherit"] });
    this.lines = readline.createInterface({ input: this.child.stdout });
    this.waiting = [];
    this.lines.on("line", (line) => {
      if (/^\[\d{4}-\d{2}-\d{2} /.test(line)) return;  // the server's log, also on stdout
      this.waiting.shift()?.(line);
    });
  }
  next() {
    return new Promise((resolve) => this.waiting.push(resolve));
  }
  async port() {
    const line = await this.next();
    const m = line.match(/^port (\d+)$/);
    assert.ok(m, `serve_fixture said ${line}`);
    return Number(m[1]);
  }
  async exec(statement) {
    assert.ok(!statement.includes("\n"));
    const answer = this.next();
    this.child.stdin.write(statement + "\n");
    assert.equal(await answer, "ok", statement);
  }
  stop() {
    this.child.stdin.end();
  }
}

async function main() {
  fs.rmSync(WORK, { recursive: true, force: true });
  fs.mkdirSync(WORK, { recursive: true });
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  const day = path.join(WORK, "sim");
  const db = path.join(WORK, "sim.duckdb");
  frota("simulate", "--date", "2024-06-05", "--vehicles", "60", "--seed", "5", "--out", day, "--writers", "2", "--hours", "6-8");
  frota("replay", "archive:" + day, "--gtfs", path.join(day, "gtfs"), "--area", path.join(day, "area.geojson"), "--db", db);
  frota("headways", "--db", db, "--gtfs", path.join(day, "gtfs"));

  // The vehicle seen last gets a hostile id, its route a hostile name, in the strings
  // every position's label points to.
  const [[vehicle, route, feed]] = sql(db, "SELECT vehicle_id, route_id, feed_id FROM positions ORDER BY event_time DESC, vehicle_id LIMIT 1");
  write(db, `UPDATE strings SET text = ${quote(HOSTILE_VEHICLE)} WHERE text = ${quote(vehicle)}; ` +
    `UPDATE strings SET text = ${quote(HOSTILE_ROUTE)} WHERE text = ${quote(route)}; ` +
    `UPDATE headways SET route_id = ${quote(HOSTILE_ROUTE)} WHERE route_id = ${quote(route)}; ` +
    `UPDATE headway_routes SET route_short_name = ${quote(HOSTILE_ROUTE)} WHERE route_id = ${quote(route)}; ` +
    `UPDATE headway_routes SET route_id = ${quote(HOSTILE_ROUTE)} WHERE route_id = ${quote(route)}; ` +
    ALERTS_DDL + "; DELETE FROM alerts; " +  // the replay's own alerts: this test adds its own
    "INSERT INTO alerts VALUES ('first', 'bunching', " + quote(feed) + ", " + quote(HOSTILE_ROUTE) +
    ", 0, DATE '2024-06-05', TIMESTAMP '2024-06-05 09:00:00', TIMESTAMP '2024-06-05 09:01:00', " +
    "TIMESTAMP '2024-06-05 09:05:00', NULL, 480, 60, " + quote(HOSTILE_VEHICLE) + ")");
  const key = `${feed}/${HOSTILE_VEHICLE}`;

  const fixture = new Fixture(db);
  const port = await fixture.port();
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });
  const failures = [];
  try {
    const page = await browser.newPage({ viewport: { width: 1366, height: 900 } });
    const errors = [];
    const dialogs = [];
    page.on("console", (m) => { if (m.type() === "error" || m.type() === "warning") errors.push(m.text()); });
    page.on("pageerror", (e) => errors.push(e.message));
    page.on("dialog", (d) => { dialogs.push(d.message()); d.dismiss(); });
    await page.goto(`http://127.0.0.1:${port}/`);
    await page.waitForFunction(() => document.querySelectorAll("#map circle").length > 0, null, { timeout: 30000 });
    await page.waitForSelector("#lines tbody tr", { timeout: 30000 });
    await page.waitForSelector('#alerts li[data-alert-id="first"]', { timeout: 30000 });
    await page.evaluate(() => { window.__sameDocument = true; });
    const asOf = await page.textContent("#as-of");
    assert.match(asOf, /^Data as of \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC/, "the as-of time is named");

    // Hostile strings stay text: nothing they spell became an element or ran.
    const titles = await page.$$eval("#map circle title", (ts) => ts.map((t) => t.textContent));
    assert.ok(titles.some((t) => t.includes(HOSTILE_VEHICLE) && t.includes(HOSTILE_ROUTE)), "the hostile vehicle's title shows its strings as text");
    assert.equal(await page.$$eval("img, b#pwned, #map script, main script", (e) => e.length), 0, "no element made from data");
    assert.equal(await page.evaluate(() => document.body.dataset.pwned), undefined, "no script from data ran");
    assert.ok((await page.textContent("#lines")).includes(HOSTILE_ROUTE), "the hostile route name is shown as text in the line table");
    assert.ok((await page.textContent("#alerts")).includes(HOSTILE_VEHICLE), "the hostile vehicles are shown as text in the alert");
    await page.screenshot({ path: path.join(ARTIFACTS, "live-before.png"), fullPage: true });

    // A vehicle moves: its latest position is changed in the database.
    const selector = `#map circle[data-vehicle="${key.replace(/["\\]/g, "\\$&")}"]`;
    const before = await page.$eval(selector, (c) => [c.getAttribute("cx"), c.getAttribute("cy")]);
    await fixture.exec("UPDATE positions_data SET lat = lat + 0.004, lon = lon - 0.004 WHERE label IN " +
      "(SELECT pl.id FROM position_labels pl JOIN strings s ON s.id = pl.vehicle_id WHERE s.text = " + quote(HOSTILE_VEHICLE) + ") " +
      "AND event_time = (SELECT max(event_time) FROM positions WHERE vehicle_id = " + quote(HOSTILE_VEHICLE) + ")");
    await page.waitForFunction(([s, b]) => {
      const c = document.querySelector(s);
      return c && (c.getAttribute("cx") !== b[0] || c.getAttribute("cy") !== b[1]);
    }, [selector, before], { timeout: 30000 });
    const after = await page.$eval(selector, (c) => [Number(c.getAttribute("cx")), Number(c.getAttribute("cy"))]);
    assert.ok(after[1] < Number(before[1]), "north on the map is up: the vehicle moved up");

    // An alert appears: committed to the alerts table, it comes over the stream.
    await fixture.exec("INSERT INTO alerts VALUES ('second', 'gap_in_progress', " + quote(feed) + ", '101', 1, " +
      "DATE '2024-06-05', TIMESTAMP '2024-06-05 09:10:00', NULL, TIMESTAMP '2024-06-05 09:30:00', NULL, 480, NULL, " +
      quote(HOSTILE_VEHICLE) + ")");
    await page.waitForSelector('#alerts li[data-alert-id="second"]', { timeout: 30000 });
    const text = await page.textContent('#alerts li[data-alert-id="second"]');
    assert.ok(text.includes("gap in progress") && text.includes("line 101"), text);
    assert.equal(await page.$$eval("#alerts li", (l) => l.length), 2);
    assert.equal(await page.$$eval("img, b#pwned", (e) => e.length), 0);
    assert.equal(await page.evaluate(() => window.__sameDocument), true, "no reload");
    assert.equal(await page.evaluate(() => document.body.dataset.pwned), undefined);
    assert.equal(await page.textContent("#connection"), "live");
    await page.screenshot({ path: path.join(ARTIFACTS, "live-after.png"), fullPage: true });
    assert.deepEqual(errors, [], "console errors");
    assert.deepEqual(dialogs, [], "dialogs");
    console.log("ok   serve: live page shows a vehicle move and an alert appear; hostile strings stay text");
  } catch (error) {
    failures.push(error);
    console.log(`FAIL serve\n${error.stack || error}`);
  } finally {
    await browser.close();
    fixture.stop();
  }
  process.exit(failures.length ? 1 : 0);
}

main().catch((error) => {
  console.log(`FAIL serve\n${error.stack || error}`);
  process.exit(1);
});
