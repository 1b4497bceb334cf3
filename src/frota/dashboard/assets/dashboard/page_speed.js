  // ---- speed -------------------------------------------------------------------------

  function modesText() {
    const mode = effectiveMode();
    return mode === null ? t("all_modes").toLowerCase() : modeName(mode);
  }
  function cellKey(c) {
    return D.cellX[c] + "," + D.cellY[c];
  }
  // A cell as people read it: the latitude and longitude of its centre.
  function cellPlace(key) {
    const parts = key.split(",").map(Number);
    return nf((parts[1] + 0.5) * D.cellSize, 3) + "; " + nf((parts[0] + 0.5) * D.cellSize, 3);
  }
  // A cell of too few segments: diagonal strokes of its colour on white, so its speed can
  // still be read but it does not look like a measured cell.
  function hatchCell(ctx, x, y, w, hgt, color) {
    ctx.save();
    ctx.beginPath();
    ctx.rect(x, y, w, hgt);
    ctx.clip();
    ctx.fillStyle = "#ffffff";
    ctx.fillRect(x, y, w, hgt);
    ctx.strokeStyle = color;
    ctx.lineWidth = Math.max(1, Math.min(w, hgt) / 6);
    const step = Math.max(3, Math.min(w, hgt) / 3);
    ctx.beginPath();
    for (let d = -hgt; d < w; d += step) {
      ctx.moveTo(x + d, y + hgt);
      ctx.lineTo(x + d + hgt, y);
    }
    ctx.stroke();
    ctx.restore();
  }
  function pageSpeed() {
    const cells = cellTotals(S.hour);
    const byCell = new Map(cells.map((c) => [c.cell, c]));
    const size = D.cellSize;
    const selectedCell = S.cell !== null ? D.cellByKey.get(S.cell) : null;
    const map = mapView({
      id: "speed",
      label: t("sp_map"),
      draw: (ctx, project) => {
        drawBase(ctx, project, S.line);
        ctx.globalAlpha = 0.86;
        for (const c of cells) {
          const x = D.cellX[c.cell];
          const y = D.cellY[c.cell];
          const a = project(x * size, (y + 1) * size);
          const b = project((x + 1) * size, y * size);
          const w = Math.max(1, b[0] - a[0]);
          const hgt = Math.max(1, b[1] - a[1]);
          if (c.few) {
            hatchCell(ctx, a[0], a[1], w, hgt, speedColor(c.kmh));
          } else {
            ctx.fillStyle = speedColor(c.kmh);
            ctx.fillRect(a[0], a[1], w, hgt);
          }
        }
        ctx.globalAlpha = 1;
        drawLineOnTop(ctx, project, S.line);
        if (selectedCell !== null && selectedCell !== undefined) {
          const x = D.cellX[selectedCell];
          const y = D.cellY[selectedCell];
          const a = project(x * size, (y + 1) * size);
          const b = project((x + 1) * size, y * size);
          ctx.strokeStyle = "#ffffff";
          ctx.lineWidth = 5;
          ctx.strokeRect(a[0], a[1], b[0] - a[0], b[1] - a[1]);
          ctx.strokeStyle = "#c2410c";
          ctx.lineWidth = 2.5;
          ctx.strokeRect(a[0], a[1], b[0] - a[0], b[1] - a[1]);
        }
      },
      hover: (lon, lat) => {
        const key = Math.floor(lon / size) + "," + Math.floor(lat / size);
        const c = D.cellByKey.get(key);
        const e = c === undefined ? null : byCell.get(c);
        if (!e) return null;
        return t("cell_tip", { cell: cellPlace(key), speed: nf(e.kmh, 1), min: nf(e.dur / 60), km: nf(e.dist / 1000, 1) }) + (e.few ? "\n" + t("sp_few_tip", { n: nf(e.segments) }) : "");
      },
      pick: (lon, lat) => {
        const key = Math.floor(lon / size) + "," + Math.floor(lat / size);
        const c = D.cellByKey.get(key);
        if (c !== undefined && byCell.has(c)) toggle("cell", key);
      },
    });
    map.firstChild.setAttribute("data-fk", "map:speed");
    const slowest = cells.filter((c) => c.dur >= MIN_SLOWEST_CELL_S && !c.few).sort((a, b) => a.kmh - b.kmh).slice(0, 8);
    const list = h("div", { class: "cell-list", role: "group", "aria-label": t("sp_slowest") }, h("span", { class: "muted", text: t("sp_slowest") }));
    for (const c of slowest) {
      const key = cellKey(c.cell);
      const sw = h("span", { class: "swatch", "aria-hidden": "true" });
      sw.style.background = speedColor(c.kmh);
      list.appendChild(h("button", { type: "button", "data-fk": "cell:" + key, "aria-pressed": S.cell === key ? "true" : "false", onclick: () => toggle("cell", key) }, sw, cellPlace(key) + " · " + nf(c.kmh, 1) + " km/h"));
    }
    const mapSub = S.hour !== null ? t("sp_map_sub_hour", { hour: hourLabel(S.hour), modes: modesText() }) : t("sp_map_sub_all", { modes: modesText() });
    const mapCard = card("sp-map", t("sp_map"), mapSub, [
      cells.length ? null : unavailable(null, t("sp_no_cells")),
      map,
      legend(SPEED_BANDS.map((b) => ({ color: b.color, label: b.label }))),
      h("p", { class: "map-hint", text: t("sp_hatched", { n: MIN_CELL_SEGMENTS }) }),
      legend(baseLegend(S.line)),
      h("p", { class: "map-hint", text: t("map_hint") }),
      list,
    ], { span: "span-8", note: S.line !== null ? t("sp_map_line_note", { line: lineLabel(S.line) }) : null });

    // Speed by hour.
    let series = [];
    let sub = t("sp_hour_sub");
    if (S.cell !== null) {
      sub = t("sp_hour_sub_cell", { cell: cellPlace(S.cell) });
      const c = D.cellByKey.get(S.cell);
      const mode = effectiveMode();
      for (let m = 0; m < D.nModes; m++) {
        if (mode !== null && m !== mode) continue;
        const dist = new Array(HOURS).fill(0);
        const dur = new Array(HOURS).fill(0);
        for (let k = 0; k < D.chCell.length; k++) {
          if (D.chCell[k] !== c || D.chMode[k] !== m) continue;
          dist[D.chHour[k]] += D.chDist[k];
          dur[D.chHour[k]] += D.chDur[k];
        }
        if (sum(dur) > 0) series.push({ label: modeName(m), color: modeColor(m), values: dur.map((v, i) => (v > 0 ? (3.6 * dist[i]) / v : null)) });
      }
    } else if (S.line !== null) {
      sub = t("sp_hour_sub_line", { line: lineLabel(S.line) });
      const l = S.line;
      series.push({ label: lineLabel(l), color: modeColor(D.lineMode[l]), values: HOUR_LABELS().map((_, i) => (D.lh.duration_s[l * HOURS + i] > 0 ? (3.6 * D.lh.distance_m[l * HOURS + i]) / D.lh.duration_s[l * HOURS + i] : null)) });
    } else {
      for (let m = 0; m < D.nModes; m++) {
        if (!modeOk(m)) continue;
        const dist = new Array(HOURS).fill(0);
        const dur = new Array(HOURS).fill(0);
        for (let l = 0; l < D.nLines; l++) {
          if (D.lineMode[l] !== m) continue;
          for (let i = 0; i < HOURS; i++) {
            dist[i] += D.lh.distance_m[l * HOURS + i] || 0;
            dur[i] += D.lh.duration_s[l * HOURS + i] || 0;
          }
        }
        if (sum(dur) > 0) series.push({ label: modeName(m), color: modeColor(m), values: dur.map((v, i) => (v > 0 ? (3.6 * dist[i]) / v : null)) });
      }
    }
    const hourCard = card("sp-hour", t("sp_hour"), sub, [
      hourChart("sp-hour", series, { kind: "line", format: (v) => nf(v, 1) + " km/h", threshold: SLOW_KMH, thresholdLabel: "10 km/h", yMin: 20, ariaLabel: t("sp_hour") }),
      legend(series.map((sr) => ({ color: sr.color, label: sr.label, line: true }))),
    ]);
    const slowCard = card("sp-slow", t("sp_slow"), t("sp_slow_sub") + " · " + modesText(),
      speedCellsInScope()
        ? hourChart("sp-slow", [{ label: t("cell"), color: "#440154", values: slowCellsByHour() }], { format: (v) => nf(v), height: 180, ariaLabel: t("sp_slow") })
        : unavailable(null, t("sp_slow_none", { modes: modesText() })));
    return [
      h("p", { class: "page-intro", text: t("sp_intro") }),
      h("div", { class: "grid" }, mapCard, stack("span-4", hourCard, slowCard), linesCard()),
    ];
  }

  function lineRows(lines) {
    const st = D.stops;
    const stopCount = new Map();
    const stopNear = new Map();
    const stopKnown = new Map();
    for (let i = 0; i < st.n; i++) {
      if (!hourOk(st.hour[i]) || (S.cell !== null && st.cell[i] !== S.cell)) continue;
      const l = st.line[i];
      stopCount.set(l, (stopCount.get(l) || 0) + 1);
      if (st.terminal[i] !== null) {
        stopKnown.set(l, (stopKnown.get(l) || 0) + 1);
        if (st.terminal[i] === 1) stopNear.set(l, (stopNear.get(l) || 0) + 1);
      }
    }
    return lines.map((l) => {
      const dist = lineHourSum("distance_m", l);
      const dur = lineHourSum("duration_s", l);
      const days = D.totals.line_days[l] || 0;
      const vehicles = S.hour === null ? D.totals.line_vehicles[l] || 0 : days ? (D.lh.vehicle_days[l * HOURS + S.hour] || 0) / days : 0;
      const known = stopKnown.get(l) || 0;
      return {
        line: l,
        label: lineLabel(l),
        name: D.lineLong[l] || (D.lineInGtfs[l] ? "" : t("not_in_gtfs")),
        mode: modeName(D.lineMode[l]),
        vehicles: vehicles,
        km: dist / 1000,
        kmh: dur > 0 ? (3.6 * dist) / dur : NaN,
        stops: stopCount.get(l) || 0,
        terminal: known ? (stopNear.get(l) || 0) / known : NaN,
        trips: lineHourSum("trips", l),
      };
    });
  }
  function linesCard() {
    const mode = effectiveMode();
    const lines = [];
    for (let l = 0; l < D.nLines; l++) if (mode === null || D.lineMode[l] === mode) lines.push(l);
    const rows = lineRows(lines).filter((r) => r.km > 0 || r.stops > 0 || r.vehicles > 0 || r.trips > 0);
    const table = dataTable({
      id: "sp-lines",
      caption: t("sp_lines"),
      columns: [
        { key: "label", label: t("col_line"), button: true, value: (r) => D.lineRoute[r.line] },
        { key: "name", label: t("col_name"), format: (r) => r.name, muted: (r) => !D.lineInGtfs[r.line] },
        { key: "mode", label: t("col_mode") },
        { key: "vehicles", label: t("col_vehicles"), num: true, format: (r) => nf(r.vehicles, S.hour === null ? 0 : dayDecimals()) },
        { key: "km", label: t("col_km"), num: true, format: (r) => nf(r.km) },
        { key: "kmh", label: t("col_speed"), num: true, format: (r) => (isFinite(r.kmh) ? nf(r.kmh, 1) : "–") },
        { key: "stops", label: t("col_stops"), num: true, format: (r) => nf(r.stops) },
        { key: "terminal", label: t("col_terminal"), num: true, format: (r) => pct(r.terminal, 0) },
        { key: "trips", label: t("col_trips"), num: true, format: (r) => nf(r.trips) },
      ],
      rows: rows,
      sort: { key: "label", desc: false },
      onRow: (r) => toggle("line", r.line),
      selected: (r) => r.line === S.line,
      rowKey: (r) => lineKey(r.line),
    });
    return card("sp-lines", t("sp_lines"), t("sp_lines_sub"), table);
  }

