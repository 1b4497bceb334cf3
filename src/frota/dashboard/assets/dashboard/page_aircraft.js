  // ---- aircraft (a tab only when the database holds aircraft) ---------------------------

  // Altitude bands, in metres of the altitude the decoder stored: barometric, else geometric
  // when barometric is null. "ground" is the feed's on-ground flag, whatever the altitude.
  const AIRCRAFT_BANDS = [
    { key: "ground", color: "#7f7f7f", test: (a) => a.ground === 1 },
    { key: "low", color: "#E69F00", test: (a) => a.ground !== 1 && a.alt !== null && a.alt < 3000 },
    { key: "mid", color: "#009E73", test: (a) => a.ground !== 1 && a.alt !== null && a.alt >= 3000 && a.alt <= 9000 },
    { key: "high", color: "#0072B2", test: (a) => a.ground !== 1 && a.alt !== null && a.alt > 9000 },
    { key: "unknown", color: "#CC79A7", test: (a) => a.ground !== 1 && a.alt === null },
  ];
  const AIRCRAFT_TABLE_LIMIT = 1000;

  function aircraftBand(a) {
    for (const band of AIRCRAFT_BANDS) if (band.test(a)) return band;
    return AIRCRAFT_BANDS[AIRCRAFT_BANDS.length - 1];
  }
  function aircraftOk(a) {
    if (S.gnd === "ground" && a.ground !== 1) return false;
    if (S.gnd === "air" && a.ground !== 0) return false;
    if (S.alt !== null && aircraftBand(a).key !== S.alt) return false;
    if (S.country !== null && (a.country === null ? "?" : a.country) !== S.country) return false;
    return true;
  }
  function aircraftFeeds() {
    const out = [];
    const m = D.modes.indexOf("aircraft");
    for (let f = 0; f < D.nFeeds; f++) if (m >= 0 && D.feedModes[f].includes(m)) out.push(f);
    return out;
  }
  // null: unknown, no aircraft_positions row (docs/dashboard.md); "": the feed's own blank country.
  function countryLabel(country) {
    return country === null ? t("ac_country_unknown") : country === "" ? t("ac_country_blank") : country;
  }
  function utcTime(seconds) {
    const d = new Date(seconds * 1000);
    return d.getUTCFullYear() + "-" + pad2(d.getUTCMonth() + 1) + "-" + pad2(d.getUTCDate()) + " " + pad2(d.getUTCHours()) + ":" + pad2(d.getUTCMinutes()) + ":" + pad2(d.getUTCSeconds()) + " UTC";
  }
  function aircraftTip(a) {
    return [a.icao24 + (a.callsign ? " · " + a.callsign : "") + " · " + countryLabel(a.country),
      t("ac_col_altitude") + ": " + (a.alt === null ? "–" : nf(a.alt) + " m") + " · " + t("ac_band_" + aircraftBand(a).key),
      t("ac_col_speed") + ": " + (a.speed === null ? "–" : nf(a.speed) + " km/h"),
      t("ac_col_time") + ": " + utcTime(a.time)].join("\n");
  }

  // Meridians and parallels, for orientation on a map without tiles: every 30° when the
  // visible span is wide, else 10°, 5° or 1°.
  function drawGraticule(ctx, project, view) {
    const nw = project(-180, 85);
    const se = project(180, -85);
    const degPx = (se[0] - nw[0]) / 360;
    const step = [1, 5, 10, 30].find((deg) => deg * degPx >= 60) || 30;
    ctx.strokeStyle = "rgba(120, 132, 150, 0.35)";
    ctx.fillStyle = "#6b7585";
    ctx.lineWidth = 1;
    ctx.font = "10px sans-serif";
    ctx.beginPath();
    for (let lon = -180; lon <= 180; lon += step) {
      const x = project(lon, 0)[0];
      if (x < 0 || x > view.width) continue;
      ctx.moveTo(x, 0);
      ctx.lineTo(x, view.height);
      ctx.fillText(lon + "°", x + 2, 10);
    }
    for (let lat = -80; lat <= 80; lat += step) {
      const y = project(0, lat)[1];
      if (y < 0 || y > view.height) continue;
      ctx.moveTo(0, y);
      ctx.lineTo(view.width, y);
      if (y > 16) ctx.fillText(lat + "°", 2, y - 2);
    }
    ctx.stroke();
  }

  function aircraftMap(shown) {
    let minLat = 90, maxLat = -90, minLon = 180, maxLon = -180;
    for (const a of D.aircraft) {
      minLat = Math.min(minLat, a.lat);
      maxLat = Math.max(maxLat, a.lat);
      minLon = Math.min(minLon, a.lon);
      maxLon = Math.max(maxLon, a.lon);
    }
    const pad = 0.05;
    const bbox = { minLat: Math.max(-85, minLat - pad), maxLat: Math.min(85, maxLat + pad), minLon: minLon - pad, maxLon: maxLon + pad };
    const nearest = (lon, lat, k) => {
      let best = null;
      let bestD = 8 / k; // 8 pixels, in radians of the projection
      const x = mercX(lon);
      const y = mercY(lat);
      for (const a of shown) {
        const d = Math.hypot(mercX(a.lon) - x, mercY(a.lat) - y);
        if (d < bestD) {
          bestD = d;
          best = a;
        }
      }
      return best;
    };
    const map = mapView({
      id: "ac-map",
      label: t("ac_map_label", { n: nf(shown.length) }),
      bbox: bbox,
      draw: (ctx, project, view) => {
        drawBase(ctx, project, null);
        drawGraticule(ctx, project, view);
        let drawn = 0;
        for (const a of shown) {
          const p = project(a.lon, a.lat);
          ctx.fillStyle = aircraftBand(a).color;
          ctx.strokeStyle = "#ffffff";
          ctx.lineWidth = 1;
          ctx.beginPath();
          if (a.track !== null && a.ground !== 1) {
            // A small arrowhead along the true track (clockwise from north).
            const r = (a.track * Math.PI) / 180;
            const f = [Math.sin(r), -Math.cos(r)];
            const side = [-f[1], f[0]];
            ctx.moveTo(p[0] + f[0] * 6, p[1] + f[1] * 6);
            ctx.lineTo(p[0] - f[0] * 4 + side[0] * 4, p[1] - f[1] * 4 + side[1] * 4);
            ctx.lineTo(p[0] - f[0] * 4 - side[0] * 4, p[1] - f[1] * 4 - side[1] * 4);
            ctx.closePath();
          } else {
            ctx.arc(p[0], p[1], 3.5, 0, 2 * Math.PI);
          }
          ctx.fill();
          ctx.stroke();
          drawn++;
        }
        map.dataset.points = String(drawn);
      },
      hover: (lon, lat, k) => {
        const a = nearest(lon, lat, k);
        return a ? aircraftTip(a) : null;
      },
    });
    map.dataset.points = "0";
    return map;
  }

  function pageAircraft() {
    const all = D.aircraft;
    const shown = all.filter(aircraftOk);
    const counts = {};
    for (const band of AIRCRAFT_BANDS) counts[band.key] = 0;
    for (const a of shown) counts[aircraftBand(a).key]++;
    const cards = [];

    const groundSel = h("select", { id: "ac-ground", "data-fk": "sel:ac-ground", onchange: (e) => update({ gnd: e.target.value === "" ? null : e.target.value }) },
      h("option", { value: "", text: t("ac_ground_all") }),
      h("option", { value: "air", text: t("ac_ground_air"), selected: S.gnd === "air" }),
      h("option", { value: "ground", text: t("ac_ground_ground"), selected: S.gnd === "ground" }));
    const altSel = h("select", { id: "ac-alt", "data-fk": "sel:ac-alt", onchange: (e) => update({ alt: e.target.value === "" ? null : e.target.value }) },
      h("option", { value: "", text: t("ac_alt_all") }));
    for (const band of AIRCRAFT_BANDS) altSel.appendChild(h("option", { value: band.key, text: t("ac_band_" + band.key), selected: S.alt === band.key }));
    const countrySel = h("select", { id: "ac-country", "data-fk": "sel:ac-country", onchange: (e) => update({ country: e.target.value === "*" ? null : e.target.value }) },
      h("option", { value: "*", text: t("ac_country_all") }));
    for (const name of D.aircraftCountries) countrySel.appendChild(h("option", { value: name, text: countryLabel(name), selected: S.country === name }));
    if (all.some((a) => a.country === null)) countrySel.appendChild(h("option", { value: "?", text: t("ac_country_unknown"), selected: S.country === "?" }));
    cards.push(card("ac-kpis", t("ac_kpis"), t("ac_kpis_sub"), [
      h("div", { class: "ac-filters" },
        h("label", { class: "field", for: "ac-country" }, t("ac_country"), countrySel),
        h("label", { class: "field", for: "ac-ground" }, t("ac_ground"), groundSel),
        h("label", { class: "field", for: "ac-alt" }, t("ac_alt"), altSel),
        S.gnd !== null || S.alt !== null || S.country !== null ? h("button", { type: "button", class: "btn", "data-fk": "ac-clear", text: t("clear_filters"), onclick: () => update({ gnd: null, alt: null, country: null }) }) : null),
      h("div", { class: "kpis" },
        kpi("ac_shown", t("ac_shown"), nf(shown.length), t("ac_of_total", { n: nf(all.length) })),
        kpi("ac_airborne", t("ac_ground_air"), nf(shown.filter((a) => a.ground === 0).length)),
        kpi("ac_on_ground", t("ac_ground_ground"), nf(shown.filter((a) => a.ground === 1).length)),
        kpi("ac_no_altitude", t("ac_band_unknown"), nf(counts.unknown))),
    ]));

    cards.push(card("ac-map", t("ac_map"), t("ac_map_sub"), [
      aircraftMap(shown),
      legend(AIRCRAFT_BANDS.map((b) => ({ color: b.color, round: true, label: t("ac_band_" + b.key) + " (" + nf(counts[b.key]) + ")" }))),
    ]));

    const rows = shown.map((a) => ({
      icao24: a.icao24,
      callsign: a.callsign,
      country: a.country,
      lastContact: a.lastContact,
      feed: D.feeds[a.feed],
      altitude: a.alt,
      ground: a.ground,
      speed: a.speed,
      time: a.time,
      positions: a.positions,
    }));
    const table = rows.length ? dataTable({ id: "ac-table", caption: t("ac_table"), limit: AIRCRAFT_TABLE_LIMIT, columns: [
      { key: "icao24", label: "icao24" },
      { key: "callsign", label: t("ac_col_callsign"), format: (r) => r.callsign || "–" },
      { key: "country", label: t("ac_col_country"), format: (r) => (r.country === null ? "–" : countryLabel(r.country)), value: (r) => (r.country === null ? "" : r.country) },
      { key: "altitude", label: t("ac_col_altitude"), num: true, format: (r) => (r.altitude === null ? "–" : nf(r.altitude)), value: (r) => (r.altitude === null ? NaN : r.altitude) },
      { key: "ground", label: t("ac_col_ground"), format: (r) => (r.ground === null ? "–" : r.ground ? t("yes") : t("no")), value: (r) => (r.ground === null ? "" : String(r.ground)) },
      { key: "speed", label: t("ac_col_speed"), num: true, format: (r) => (r.speed === null ? "–" : nf(r.speed, 1)), value: (r) => (r.speed === null ? NaN : r.speed) },
      { key: "time", label: t("ac_col_time"), num: true, format: (r) => utcTime(r.time) },
      { key: "lastContact", label: t("ac_col_last_contact"), num: true, format: (r) => (r.lastContact === null ? "–" : utcTime(r.lastContact)), value: (r) => (r.lastContact === null ? NaN : r.lastContact) },
      { key: "positions", label: t("ac_col_positions"), num: true, format: (r) => nf(r.positions) },
      { key: "feed", label: t("ac_col_feed") },
    ], rows: rows, sort: { key: "icao24", desc: false } }) : unavailable(null, t("ac_none_shown"));
    cards.push(card("ac-table", t("ac_table"), t("ac_table_sub"), table, {
      note: rows.length > AIRCRAFT_TABLE_LIMIT ? t("ac_table_more", { n: nf(AIRCRAFT_TABLE_LIMIT), total: nf(rows.length) }) : null,
    }));

    // The quality figures of the feeds that carry aircraft, as the Quality page counts them.
    const feeds = aircraftFeeds();
    const q = qualityFigures(feeds);
    const quality = [qualityKpis(q, [
      kpi("jumps", t("ac_jumps"), nf(q.reasons.jump || 0)),
      kpi("out_of_area", t("ac_out_of_area"), nf(q.reasons.out_of_area || 0))])];
    const C = D.collector;
    if (C && C.has_repeat) {
      let rep = 0;
      let polls = 0;
      for (const f of feeds) for (let hour = 0; hour < HOURS; hour++) if (hourOk(hour)) {
        rep += C.repeats[f * HOURS + hour];
        polls += C.polls[f * HOURS + hour];
      }
      quality.push(h("div", { class: "kpis" }, kpi("repeats", t("q_repeated"), nf(rep), pct(polls ? rep / polls : NaN) + " / " + nf(polls) + " " + t("q_polls").toLowerCase())));
    }
    quality.push(reasonTable("ac-reasons", q) || h("p", { class: "muted", text: t("q_no_rejections") }));
    cards.push(card("ac-quality", t("ac_quality"), t("ac_quality_sub", { feeds: feeds.map((f) => D.feeds[f]).join(", ") || "–" }), quality,
      { note: C && C.has_repeat ? null : t("ac_no_repeats") }));

    return [h("p", { class: "page-intro", text: t("ac_intro") }), h("div", { class: "grid" }, cards)];
  }
