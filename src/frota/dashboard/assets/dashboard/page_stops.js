  // ---- stops -------------------------------------------------------------------------

  function terminalKind(v) {
    return v === null || v === undefined ? "unknown" : v === 1 ? "near" : v === 2 ? "depot" : "away";
  }
  const KIND_LABEL = { near: "st_near", away: "st_away", depot: "st_depot", unknown: "st_unknown" };
  function stopStart(i) {
    const st = D.stops;
    const day = Math.floor(st.start[i] / 1440);
    const minute = st.start[i] % 1440;
    return dateLabel(D.dates[day]) + " " + pad2(Math.floor(minute / 60)) + ":" + pad2(minute % 60);
  }
  function pageStops() {
    const st = D.stops;
    const idx = scopedStops();
    const order = idx.slice().sort((a, b) => st.duration[b] - st.duration[a]);
    const map = mapView({
      id: "stops",
      label: t("st_map"),
      draw: (ctx, project, view) => {
        drawBase(ctx, project, S.line);
        drawLineOnTop(ctx, project, S.line);
        const grow = Math.min(2.2, Math.max(0.8, Math.sqrt(view.k / 900)));
        for (const i of order) {
          const p = project(st.lon[i], st.lat[i]);
          if (p[0] < -20 || p[1] < -20 || p[0] > view.width + 20 || p[1] > view.height + 20) continue;
          const r = Math.max(1.5, 1.5 * Math.sqrt(st.duration[i] / 300) * grow);
          const color = TERMINAL_COLORS[terminalKind(st.terminal[i])];
          ctx.beginPath();
          ctx.arc(p[0], p[1], r, 0, 2 * Math.PI);
          ctx.fillStyle = color;
          ctx.globalAlpha = 0.22;
          ctx.fill();
          ctx.globalAlpha = 0.85;
          ctx.lineWidth = 1;
          ctx.strokeStyle = color;
          ctx.stroke();
        }
        ctx.globalAlpha = 1;
      },
      hover: (lon, lat, k) => {
        let best = -1;
        let bestD = Infinity;
        const px = mercX(lon);
        const py = mercY(lat);
        for (const i of idx) {
          const dx = (mercX(st.lon[i]) - px) * k;
          const dy = (mercY(st.lat[i]) - py) * k;
          const d = dx * dx + dy * dy;
          if (d < bestD) {
            bestD = d;
            best = i;
          }
        }
        if (best < 0 || bestD > 100) return null;
        return t("stop_tip", { vehicle: st.vehicleId[st.vehicle[best]], line: lineLabel(st.line[best]), start: stopStart(best), duration: durationLabel(st.duration[best]), where: t(KIND_LABEL[terminalKind(st.terminal[best])]) });
      },
    });
    map.firstChild.setAttribute("data-fk", "map:stops");
    const mapCard = card("st-map", t("st_map"), t("st_map_sub", { n: nf(idx.length) }), [
      map,
      legend([{ color: TERMINAL_COLORS.near, label: t("st_near"), round: true }, { color: TERMINAL_COLORS.away, label: t("st_away"), round: true }, { color: TERMINAL_COLORS.depot, label: t("st_depot"), round: true }, { color: TERMINAL_COLORS.unknown, label: t("st_unknown"), round: true }]),
      legend(baseLegend(S.line)),
      h("p", { class: "map-hint", text: t("map_hint") }),
    ], { span: "span-8" });

    // The share at a terminal is of the stops in service: those at a depot are apart.
    let near = 0;
    let known = 0;
    let depot = 0;
    let total = 0;
    for (const i of idx) {
      total += st.duration[i];
      if (st.terminal[i] === 2) depot++;
      else if (st.terminal[i] !== null) {
        known++;
        if (st.terminal[i] === 1) near++;
      }
    }
    const durations = idx.map((i) => st.duration[i]).sort((a, b) => a - b);
    const median = durations.length ? durations[Math.floor((durations.length - 1) / 2)] : NaN;
    const kpis = card("st-kpis", t("st_kpis"), filterSummary(), h("div", { class: "kpis" },
      kpi("stops", t("st_count"), nf(idx.length)),
      kpi("stop_hours", t("st_hours"), nf(total / 3600, 1)),
      kpi("stop_median", t("st_median"), isFinite(median) ? durationLabel(median) : "–"),
      kpi("near_terminal", t("st_share_terminal"), pct(known ? near / known : NaN, 0), t("st_share_detail", { n: nf(near), of: nf(known) })),
      kpi("at_depot", t("st_depot_count"), nf(depot), t("st_depot_detail"))));

    const bins = [[5, 10], [10, 15], [15, 20], [20, 30], [30, 45], [45, 60], [60, 90], [90, 120], [120, 240], [240, Infinity]];
    const binOf = (sec) => {
      const minutes = sec / 60;
      for (let b = 0; b < bins.length; b++) if (minutes < bins[b][1]) return b;
      return bins.length - 1;
    };
    const hist = { near: bins.map(() => 0), away: bins.map(() => 0), depot: bins.map(() => 0), unknown: bins.map(() => 0) };
    const byHour = { near: new Array(HOURS).fill(0), away: new Array(HOURS).fill(0), depot: new Array(HOURS).fill(0), unknown: new Array(HOURS).fill(0) };
    for (const i of idx) {
      const kind = terminalKind(st.terminal[i]);
      hist[kind][binOf(st.duration[i])]++;
    }
    // The hour chart keeps every hour visible (so another can be chosen): filters but the hour.
    for (let i = 0; i < st.n; i++) {
      if (!lineOk(st.line[i]) || (S.cell !== null && st.cell[i] !== S.cell)) continue;
      byHour[terminalKind(st.terminal[i])][st.hour[i]]++;
    }
    const kinds = [["near", t("st_near")], ["away", t("st_away")], ["depot", t("st_depot")], ["unknown", t("st_unknown")]];
    const histCard = card("st-hist", t("st_hist"), t("st_hist_sub"), chart({
      id: "st-hist",
      labels: bins.map((b) => (b[0] >= 120 ? b[0] / 60 + " h" : String(b[0]))),
      labelWidth: 26,
      series: kinds.map(([k, label]) => ({ label: label, color: TERMINAL_COLORS[k], values: hist[k] })),
      format: (v) => nf(v),
      tipSuffix: (i) => (bins[i][1] === Infinity ? " h +" : bins[i][0] >= 120 ? "–" + bins[i][1] / 60 + " h" : "–" + bins[i][1] + " min"),
      ariaLabel: t("st_hist"),
    }));
    const hourCard = card("st-hour", t("st_hour"), t("st_hour_sub"), hourChart("st-hour", kinds.map(([k, label]) => ({ label: label, color: TERMINAL_COLORS[k], values: byHour[k] })), { format: (v) => nf(v), ariaLabel: t("st_hour") }), { span: "span-5" });
    const rows = order.slice(0, 25).map((i) => ({
      i: i, vehicle: st.vehicleId[st.vehicle[i]], line: st.line[i], label: lineLabel(st.line[i]), start: st.start[i], duration: st.duration[i],
      terminal: terminalKind(st.terminal[i]), where: nf(st.lat[i], 4) + ", " + nf(st.lon[i], 4),
    }));
    const longest = card("st-longest", t("st_longest"), t("st_longest_sub"), dataTable({
      id: "st-longest",
      caption: t("st_longest"),
      columns: [
        { key: "vehicle", label: t("col_vehicle") },
        { key: "label", label: t("col_line"), button: true, value: (r) => D.lineRoute[r.line] },
        { key: "start", label: t("col_start"), format: (r) => stopStart(r.i) },
        { key: "duration", label: t("col_duration"), num: true, format: (r) => durationLabel(r.duration) },
        { key: "terminal", label: t("col_terminal"), format: (r) => (r.terminal === "near" ? t("yes") : r.terminal === "away" ? t("no") : r.terminal === "depot" ? t("st_depot") : t("unknown")) },
        { key: "where", label: t("col_where"), format: (r) => r.where },
      ],
      rows: rows,
      sort: { key: "duration", desc: true },
      onRow: (r) => toggle("line", r.line),
      selected: (r) => r.line === S.line,
      rowKey: (r) => "stop" + r.i,
    }), { span: "span-7" });
    longest.querySelector(".table-wrap").style.maxHeight = "330px";
    return [
      h("p", { class: "page-intro", text: t("st_intro") }),
      h("div", { class: "grid" }, mapCard, stack("span-4", kpis, histCard), longest, hourCard),
    ];
  }

