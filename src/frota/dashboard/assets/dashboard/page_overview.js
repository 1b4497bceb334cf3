  // ---- overview ----------------------------------------------------------------------

  function pageOverview() {
    const lines = scopeLines();
    const fleet = fleetSeries();
    let positions = 0;
    for (const sr of positionSeries()) for (let hour = 0; hour < HOURS; hour++) if (hourOk(hour)) positions += sr.values[hour];
    let vehicles;
    let vehiclesLabel;
    let vehiclesDetail;
    if (S.hour === null) {
      vehicles = S.line !== null ? D.totals.line_vehicles[S.line] : S.mode !== null ? D.totals.mode_vehicles[S.mode] : D.totals.vehicles;
      vehiclesLabel = t("kpi_vehicles");
      vehiclesDetail = t("kpi_vehicles_detail_period");
    } else {
      vehicles = sum(fleet.map((sr) => sr.values[S.hour]));
      vehiclesLabel = t("kpi_vehicles_hour", { hour: hourLabel(S.hour) });
      vehiclesDetail = t("kpi_vehicles_detail_hour");
    }
    let lineCount = 0;
    for (const l of lines) if (D.lineRoute[l] !== "" && lineHourSum("positions", l) > 0) lineCount++;
    const speed = speedTotals(lines);
    let trips = 0;
    for (const l of lines) trips += lineHourSum("trips", l);
    const stopsCount = scopedStops().length;
    const q = qualityTotals(scopeFeeds(), S.hour);
    const errRate = q.accepted + q.errors > 0 ? q.errors / (q.accepted + q.errors) : NaN;
    const p50 = latencyPercentile(q.latency, 0.5);
    const p90 = latencyPercentile(q.latency, 0.9);
    const kpis = h("div", { class: "kpis" },
      kpi("positions", t("kpi_positions"), nf(positions)),
      kpi("vehicles", vehiclesLabel, nf(vehicles, S.hour === null ? 0 : dayDecimals()), vehiclesDetail),
      kpi("lines", t("kpi_lines"), nf(lineCount)),
      kpi("km", t("kpi_km"), nf(speed.dist / 1000)),
      kpi("speed", t("kpi_speed"), isFinite(speed.kmh) ? nf(speed.kmh, 1) + " km/h" : "–"),
      kpi("stops", t("kpi_stops"), nf(stopsCount)),
      kpi("trips", t("kpi_trips"), nf(trips)),
      kpi("error_rate", t("kpi_error_rate"), pct(errRate, 2), t("kpi_error_detail", { n: nf(q.errors) })),
      kpi("latency", t("kpi_latency"), isFinite(p50) ? nf(p50) + " / " + nf(p90) + " s" : "–"));
    const agg = D.nDays > 1 ? t("agg_days", { n: nf(D.nDays), full: nf(D.totals.full_days) }) : dateLabel(D.dates[0] || "1970-01-01");
    const fleetSub = S.line !== null ? t("ov_fleet_line_sub", { line: lineLabel(S.line), agg: agg }) : t("ov_fleet_sub", { agg: agg });
    const fleetModes = fleet.filter((sr) => sr.mode !== undefined).map((sr) => sr.mode);
    const fleetCard = card("ov-fleet", t("ov_fleet"), fleetSub,
      [hourChart("ov-fleet", fleet, { format: (v) => nf(v, dayDecimals()) + " " + t("vehicles"), ariaLabel: t("ov_fleet") }),
        S.line === null ? modeLegend(fleetModes) : null],
      { span: "span-6" });
    const posSeries = positionSeries();
    const posCard = card("ov-positions", t("ov_positions"), t("ov_positions_sub"),
      [hourChart("ov-positions", posSeries, { format: (v) => nf(v) + " " + t("positions"), ariaLabel: t("ov_positions") }),
        S.line === null ? modeLegend(posSeries.map((sr) => sr.mode)) : null],
      { span: "span-6" });
    return [
      h("p", { class: "page-intro", text: t("ov_intro") }),
      h("div", { class: "grid" },
        card("ov-kpis", t("ov_kpis"), filterSummary(), kpis),
        fleetCard,
        posCard,
        healthCard()),
    ];
  }

  function healthCard() {
    const Q = D.quality;
    const rows = [];
    for (const f of scopeFeeds()) {
      const q = qualityTotals([f], S.hour);
      // Days with data out of the days between the feed's first and last: gaps in its own span.
      let days = 0;
      let first = -1;
      let last = -1;
      for (let d = 0; d < D.nDays; d++) {
        if (Q.day_accepted[f * D.nDays + d] > 0) {
          days++;
          if (first < 0) first = d;
          last = d;
        }
      }
      const span = first < 0 ? 0 : last - first + 1;
      const rate = q.accepted + q.errors > 0 ? q.errors / (q.accepted + q.errors) : NaN;
      const p50 = latencyPercentile(q.latency, 0.5);
      const p90 = latencyPercentile(q.latency, 0.9);
      let status = "good";
      if (q.accepted + q.errors === 0) status = "none";
      else if (rate > 0.2 || p90 > 180 || days < 0.5 * span) status = "bad";
      else if (rate > 0.05 || p90 > 90 || days < span) status = "warn";
      rows.push({ feed: D.feeds[f], accepted: q.accepted, errors: q.errors, rate: rate, duplicates: q.duplicates, p50: p50, p90: p90, days: days, span: span, status: status });
    }
    const table = dataTable({
      id: "ov-health",
      caption: t("ov_health"),
      columns: [
        { key: "feed", label: t("feed") },
        { key: "status", label: t("status"), value: (r) => ["none", "good", "warn", "bad"].indexOf(r.status), node: (r) => h("span", { class: "status " + r.status, text: t("status_" + r.status) }) },
        { key: "accepted", label: t("accepted"), num: true, format: (r) => nf(r.accepted) },
        { key: "errors", label: t("errors"), num: true, format: (r) => nf(r.errors) },
        { key: "rate", label: t("error_rate"), num: true, format: (r) => pct(r.rate, 2) },
        { key: "duplicates", label: t("duplicates"), num: true, format: (r) => nf(r.duplicates) },
        { key: "p50", label: t("latency_p50"), num: true, format: (r) => (isFinite(r.p50) ? nf(r.p50) + " s" : "–") },
        { key: "p90", label: t("latency_p90"), num: true, format: (r) => (isFinite(r.p90) ? nf(r.p90) + " s" : "–") },
        { key: "days", label: t("days_with_data"), num: true, format: (r) => nf(r.days) + " / " + nf(r.span) },
      ],
      rows: rows,
      sort: { key: "feed", desc: false },
    });
    let perDay = null;
    if (D.nDays > 1) {
      const values = [];
      const feeds = scopeFeeds();
      for (let d = 0; d < D.nDays; d++) {
        let v = 0;
        for (const f of feeds) v += Q.day_accepted[f * D.nDays + d];
        values.push(v);
      }
      perDay = h("div", null,
        h("p", { class: "sub", text: t("per_day") }),
        chart({ id: "ov-days", labels: D.dates.map((d) => d.slice(5)), series: [{ label: t("accepted"), color: "#0072B2", values: values }], height: 120, labelWidth: 48, format: (v) => nf(v) + " " + t("positions"), tipSuffix: (i) => " (" + dateLabel(D.dates[i]) + ")" }));
    }
    return card("ov-health", t("ov_health"), t("ov_health_sub"), [table, perDay]);
  }

