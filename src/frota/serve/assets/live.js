// The live page of `frota serve`: vehicles on a map, alerts, lines, all fed by the API
// of the server that sent this file. Every text from the data goes in with textContent
// or as an attribute value, never as markup.
"use strict";
(() => {
  const REFRESH_MS = 2000;
  const SVG = "http://www.w3.org/2000/svg";
  const WIDTH = 1000;
  const HEIGHT = 700;
  const MARGIN = 20;
  const $ = (id) => document.getElementById(id);

  const vehicles = new Map();  // "feed/vehicle" -> {circle, title, v}
  const alerts = new Map();    // alert_id -> alert
  let bounds = null;           // {minLat, maxLat, minLon, maxLon}, grows, never shrinks
  let asOf = null;
  let refreshing = false;
  let refreshAgain = false;

  function text(element, value) {
    element.textContent = value == null ? "" : String(value);
    return element;
  }
  function el(tag, className, value) {
    const e = document.createElement(tag);
    if (className) e.className = className;
    if (value !== undefined) text(e, value);
    return e;
  }
  function utc(iso) {
    return iso ? iso.replace("T", " ").replace("Z", " UTC") : "—";
  }
  function local(iso) {
    if (!iso) return "";
    const d = new Date(iso);
    return Number.isNaN(d.getTime()) ? "" : d.toLocaleString();
  }
  function duration(seconds) {
    if (seconds == null) return "—";
    const s = Math.round(seconds);
    return s >= 60 ? `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, "0")} s` : `${s} s`;
  }
  function direction(d) {
    return d == null ? "—" : String(d);
  }

  function showAsOf(iso) {
    if (iso === undefined) return;
    asOf = iso;
    text($("as-of"), iso ? `Data as of ${utc(iso)} (${local(iso)} here)` : "Data as of: no positions yet");
  }
  function showConnection(ok, message) {
    const c = $("connection");
    c.classList.toggle("down", !ok);
    text(c, message);
  }

  // ------------------------------------------------------------------ map
  function extend(list) {
    let changed = false;
    for (const v of list) {
      if (!Number.isFinite(v.lat) || !Number.isFinite(v.lon)) continue;
      if (!bounds) {
        bounds = { minLat: v.lat, maxLat: v.lat, minLon: v.lon, maxLon: v.lon };
        changed = true;
        continue;
      }
      if (v.lat < bounds.minLat) { bounds.minLat = v.lat; changed = true; }
      if (v.lat > bounds.maxLat) { bounds.maxLat = v.lat; changed = true; }
      if (v.lon < bounds.minLon) { bounds.minLon = v.lon; changed = true; }
      if (v.lon > bounds.maxLon) { bounds.maxLon = v.lon; changed = true; }
    }
    return changed;
  }
  // Equirectangular, one scale for both axes (corrected by the cosine of the latitude).
  function project(lat, lon) {
    const midLat = (bounds.minLat + bounds.maxLat) / 2;
    const k = Math.cos((midLat * Math.PI) / 180);
    const spanX = Math.max((bounds.maxLon - bounds.minLon) * k, 1e-6);
    const spanY = Math.max(bounds.maxLat - bounds.minLat, 1e-6);
    const scale = Math.min((WIDTH - 2 * MARGIN) / spanX, (HEIGHT - 2 * MARGIN) / spanY);
    const x = MARGIN + (lon - bounds.minLon) * k * scale;
    const y = HEIGHT - MARGIN - (lat - bounds.minLat) * scale;
    return [x, y];
  }
  function place(entry) {
    const [x, y] = project(entry.v.lat, entry.v.lon);
    entry.circle.setAttribute("cx", x.toFixed(1));
    entry.circle.setAttribute("cy", y.toFixed(1));
  }
  function showVehicles(doc) {
    const map = $("map");
    const seen = new Set();
    const rescale = extend(doc.vehicles);
    for (const v of doc.vehicles) {
      const key = `${v.feed_id}/${v.vehicle_id}`;
      seen.add(key);
      let entry = vehicles.get(key);
      if (!entry) {
        const circle = document.createElementNS(SVG, "circle");
        circle.setAttribute("r", "5");
        circle.dataset.vehicle = key;
        const title = document.createElementNS(SVG, "title");
        circle.appendChild(title);
        map.appendChild(circle);
        entry = { circle, title, v };
        vehicles.set(key, entry);
      }
      entry.v = v;
      entry.circle.dataset.route = v.route_id;
      entry.circle.dataset.eventTime = v.event_time;
      text(entry.title, `${v.vehicle_id} · line ${v.route_id} · ${utc(v.event_time)}`);
      if (!rescale) place(entry);
    }
    for (const [key, entry] of vehicles) {
      if (!seen.has(key)) {
        entry.circle.remove();
        vehicles.delete(key);
      }
    }
    if (rescale) for (const entry of vehicles.values()) place(entry);
    text($("vehicle-count"), `(${vehicles.size})`);
    text($("vehicle-note"), `Latest accepted position of each vehicle seen in the ${Math.round(doc.window_s / 60)} minutes before the as-of time.`);
  }

  // ------------------------------------------------------------------ lines
  function showLines(doc) {
    const body = $("lines").tBodies[0];
    const rows = [];
    for (const l of doc.lines) {
      const tr = document.createElement("tr");
      tr.dataset.route = l.route_id;
      tr.appendChild(el("td", "", l.route_short_name ?? l.route_id));
      tr.appendChild(el("td", "", direction(l.direction_id)));
      tr.appendChild(el("td", `status-${l.status}`, l.status.replace(/_/g, " ")));
      tr.appendChild(el("td", "", utc(l.last_departure)));
      tr.appendChild(el("td", "", duration(l.last_headway_s)));
      tr.appendChild(el("td", "", duration(l.planned_headway_s)));
      tr.appendChild(el("td", "", duration(l.median_headway_last_hour_s)));
      tr.appendChild(el("td", "", String(l.bunching_last_hour)));
      tr.appendChild(el("td", "", String(l.gaps_last_hour)));
      rows.push(tr);
    }
    body.replaceChildren(...rows);
    text($("lines-note"), doc.headways_computed
      ? "Regularity from the headways table, as of the as-of time."
      : "No headways table in this database yet (run frota headways).");
  }

  // ------------------------------------------------------------------ alerts
  function showAlerts() {
    const list = [...alerts.values()].sort((a, b) =>
      a.raised_at < b.raised_at ? 1 : a.raised_at > b.raised_at ? -1 : a.alert_id < b.alert_id ? 1 : -1);
    const items = list.map((a) => {
      const li = el("li", a.kind);
      li.dataset.alertId = a.alert_id;
      if (a.closed_at) li.classList.add("closed");
      li.appendChild(el("span", "kind", a.kind.replace(/_/g, " ")));
      li.appendChild(el("span", "route", a.route_id ? `line ${a.route_id} · direction ${direction(a.direction_id)}` : `feed ${a.feed_id}`));
      const parts = [`raised ${utc(a.raised_at)}`, `from ${utc(a.start_time)}`];
      if (a.end_time) parts.push(`to ${utc(a.end_time)}`);
      if (a.actual_headway_s != null) parts.push(`headway ${duration(a.actual_headway_s)}`);
      if (a.planned_headway_s != null) parts.push(`planned ${duration(a.planned_headway_s)}`);
      if (a.vehicles) parts.push(`vehicles ${a.vehicles}`);
      if (a.closed_at) parts.push(`closed ${utc(a.closed_at)}`);
      li.appendChild(el("span", "detail", parts.join(" · ")));
      return li;
    });
    $("alerts").replaceChildren(...items);
    text($("alert-count"), `(${alerts.size})`);
  }
  function mergeAlert(a) {
    alerts.set(a.alert_id, a);
  }

  // ------------------------------------------------------------------ feeding
  async function getJson(path) {
    const response = await fetch(path, { cache: "no-store" });
    if (!response.ok) throw new Error(`${path}: HTTP ${response.status}`);
    return response.json();
  }
  async function refresh() {
    if (refreshing) { refreshAgain = true; return; }
    refreshing = true;
    try {
      const [v, l] = await Promise.all([getJson("api/vehicles"), getJson("api/lines")]);
      showAsOf(v.as_of);
      showVehicles(v);
      showLines(l);
      document.body.dataset.updated = new Date().toISOString();
    } catch (error) {
      showConnection(false, `cannot read the API: ${error.message}`);
    } finally {
      refreshing = false;
      if (refreshAgain) { refreshAgain = false; refresh(); }
    }
  }
  async function loadAlerts() {
    try {
      const doc = await getJson("api/alerts");
      for (const a of doc.alerts) mergeAlert(a);
      text($("alerts-note"), doc.alerts_table ? "" : "No alerts table in this database yet.");
      showAlerts();
    } catch (error) {
      showConnection(false, `cannot read alerts: ${error.message}`);
    }
  }
  function stream() {
    const source = new EventSource("api/alerts/stream");
    source.addEventListener("open", () => {
      showConnection(true, "live");
      loadAlerts();  // after the stream is open: nothing raised in between is missed
    });
    source.addEventListener("error", () => showConnection(false, "alert stream lost, reconnecting…"));
    source.addEventListener("alert", (event) => {
      mergeAlert(JSON.parse(event.data));
      showAlerts();
    });
    source.addEventListener("as_of", (event) => {
      const doc = JSON.parse(event.data);
      if (doc.as_of !== asOf) refresh();
    });
  }

  refresh();
  stream();
  setInterval(refresh, REFRESH_MS);
})();
