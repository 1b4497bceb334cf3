  // ---- regularity --------------------------------------------------------------------

  function pageRegularity() {
    const HW = D.headways;
    const scope = S.line !== null ? t("line_scope", { line: lineLabel(S.line) }) : t("all_lines_scope");
    const ok = (line, hour, dir, dt) => headwayLineOk(line) && hourOk(hour) && (dt === undefined || dayTypeOk(dt));
    const cards = [];
    const top = [h("p", { class: "page-intro", text: t("rg_intro") })];
    if (!HW) {
      cards.push(card("rg-kpis", t("rg_kpis"), null, unavailable(t("rg_unavailable_title"), t("rg_unavailable"))));
      cards.push(card("rg-found", t("rg_found"), null, unavailable(null, t("rg_no_hours")), { span: "span-6" }));
      cards.push(card("rg-dist", t("rg_dist"), null, unavailable(null, t("rg_no_headways")), { span: "span-6" }));
      cards.push(card("rg-strip", t("rg_strip"), null, unavailable(null, t("rg_no_coverage"))));
      cards.push(card("rg-lines", t("rg_lines"), null, unavailable(null, t("rg_no_headways"))));
    } else {
      top.push(dayTypeSelector());
      const stats = headwayStats(ok);
      const dep = departures((line) => headwayLineOk(line));
      const excluded = excludedCounts((line, hour) => headwayLineOk(line) && hourOk(hour));
      let found = 0;
      let planned = 0;
      for (let hour = 0; hour < HOURS; hour++) {
        if (!hourOk(hour)) continue;
        found += dep.found[hour];
        planned += dep.planned[hour];
      }
      const band = tcqsmBand(stats.cv);
      const minutes = (v) => (isFinite(v) ? nf(v / 60, 1) : "–");
      const has = !!HW.headways;
      const unseen = lineDaysNotSeen();
      const foundDetail = t("rg_found_detail", { found: nf(found), planned: nf(planned) }) +
        (unseen ? " · " + t("rg_not_seen_detail", { days: nf(unseen.days), planned: nf(unseen.planned) }) : "");
      cards.push(card("rg-kpis", t("rg_kpis"), filterSummary(), h("div", { class: "kpis" },
        kpi("found_ratio", t("rg_found_ratio"), HW.hours ? pct(planned ? found / planned : NaN, 0) : "–", HW.hours ? foundDetail : t("rg_no_hours")),
        kpi("median", t("rg_median"), has ? minutes(stats.median) : "–", t("rg_median_detail", { n: nf(stats.n) })),
        kpi("p90", t("rg_p90"), has ? minutes(stats.p90) : "–", t("rg_minutes")),
        kpi("under_60s", t("rg_under60"), has && !stats.tooFew ? pct(stats.n ? stats.under60 / stats.n : NaN) : "–", t("rg_under60_detail")),
        kpi("bunching", t("rg_bunching"), has ? pct(stats.nPlanned ? stats.bunching / stats.nPlanned : NaN) : "–", t("rg_bunching_detail")),
        kpi("gap", t("rg_gap"), has ? pct(stats.nPlanned ? stats.gap / stats.nPlanned : NaN) : "–", t("rg_gap_detail")),
        kpi("cv", t("rg_cv"), isFinite(stats.cv) ? nf(stats.cv, 2) : "–", t("rg_cv_detail", { band: band })),
        kpi("excess_wait", t("rg_excess"), isFinite(stats.excess) ? nf(stats.excess / 60, 1) : "–", t("rg_excess_detail")),
        kpi("excluded", t("rg_excluded"), excluded ? nf(excluded.total) : "–", excluded ? excludedText(excluded) : t("rg_excluded_none")))));
      if (HW.hours) {
        cards.push(card("rg-found", t("rg_found"), t("rg_found_sub", { scope: scope }), [
          hourChart("rg-found", [
            { label: t("rg_found_series"), color: "#0072B2", values: dep.found },
            { label: t("rg_planned_series"), color: "#6b7385", values: dep.planned, outline: true },
          ], { stacked: false, ariaLabel: t("rg_found") }),
          legend([{ color: "#0072B2", label: t("rg_found_series") }, { color: "#6b7385", label: t("rg_planned_series"), outline: true }]),
        ], { span: "span-6" }));
      } else {
        cards.push(card("rg-found", t("rg_found"), null, unavailable(null, t("rg_no_hours")), { span: "span-6" }));
      }
      if (has) {
        const bins = [[0, 0.25, "< 0,25"], [0.25, 0.5, "0,25–0,5"], [0.5, 0.75, "0,5–0,75"], [0.75, 1.25, "0,75–1,25"], [1.25, 1.5, "1,25–1,5"], [1.5, 2, "1,5–2"], [2, 3, "2–3"], [3, Infinity, "≥ 3"]];
        const labels = bins.map((b) => (LANG === "en" ? b[2].replace(/,/g, ".") : b[2]));
        const counts = bins.map(() => 0);
        for (const r of stats.ratios) {
          for (let i = 0; i < bins.length; i++) if (r >= bins[i][0] && r < bins[i][1]) { counts[i]++; break; }
        }
        const bunch = counts.map((c, i) => (i === 0 ? c : 0));
        const ontime = counts.map((c, i) => (i > 0 && i < 6 ? c : 0));
        const gaps = counts.map((c, i) => (i >= 6 ? c : 0));
        cards.push(card("rg-dist", t("rg_dist"), t("rg_dist_sub", { n: nf(stats.nPlanned) }), [
          chart({ id: "rg-dist", labels: labels, labelWidth: 56, series: [
            { label: t("rg_bunching"), color: "#D55E00", values: bunch },
            { label: "", color: "#56B4E9", values: ontime },
            { label: t("rg_gap"), color: "#CC79A7", values: gaps },
          ], format: (v) => nf(v), ariaLabel: t("rg_dist") }),
          legend([{ color: "#D55E00", label: t("rg_bunching") + " (< 0,25)" }, { color: "#56B4E9", label: "0,25–2" }, { color: "#CC79A7", label: t("rg_gap") + " (> 2)" }]),
        ], { span: "span-6" }));
      } else {
        cards.push(card("rg-dist", t("rg_dist"), null, unavailable(null, t("rg_no_headways")), { span: "span-6" }));
      }
      cards.push(coverageCard());
      if (has) cards.push(card("rg-lines", t("rg_lines"), t(S.hour !== null && HW.summary ? "rg_lines_sub_hour" : "rg_lines_sub"), regularityTable()));
      else cards.push(card("rg-lines", t("rg_lines"), null, unavailable(null, t("rg_no_headways"))));
    }
    cards.push(limitsCard());
    // Trips are in the database either way: an honest, weaker signal than departures.
    const trips = new Array(HOURS).fill(0);
    for (const l of scopeLines()) for (let hour = 0; hour < HOURS; hour++) trips[hour] += D.lh.trips[l * HOURS + hour] || 0;
    cards.push(card("rg-trips", t("rg_trips"), t("rg_trips_sub"), sum(trips) ? hourChart("rg-trips", [{ label: t("kpi_trips"), color: "#009E73", values: trips }], { format: (v) => nf(v), ariaLabel: t("rg_trips") }) : unavailable(null, t("rg_trips_none"))));
    return [top, h("div", { class: "grid" }, cards)];
  }

  // All / weekday / saturday / sunday / holiday: only the types the data name.
  function dayTypeSelector() {
    const types = dayTypesShown();
    if (!types.length) return null;
    const button = (value, label) => h("button", { type: "button", class: "btn", "data-fk": "daytype:" + (value === null ? "all" : value), "aria-pressed": S.dt === value ? "true" : "false", text: label, onclick: () => update({ dt: value }) });
    return h("div", { class: "daytypes", role: "group", "aria-label": t("rg_daytype") },
      h("span", { class: "daytypes-label", text: t("rg_daytype") + ":" }),
      button(null, t("rg_dt_all")),
      types.map((x) => button(x, WORDS[LANG]["rg_dt_" + x] !== undefined ? t("rg_dt_" + x) : x)));
  }

  // Dates of the selected day type (every date when none is selected).
  function datesOfDayType() {
    const out = new Set();
    const types = D.headways && D.headways.date_day_type;
    for (let d = 0; d < D.nDays; d++) if (S.dt === null || (types && dayTypeOk(types[d]))) out.add(d);
    return out;
  }
  function minuteLabel(m) {
    const mm = ((m % 1440) + 1440) % 1440;
    return pad2(Math.floor(mm / 60)) + ":" + pad2(mm % 60);
  }

  // Per line: when the feeds carrying it were blind (coverage_gaps) and when the line was silent
  // while they were not (line_silences), over the 24 hours of the dates of the selected day
  // type; over several dates a minute's shade is the share of those dates it was blind or silent.
  // Hours with planned departures are shaded behind.
  function coverageCard() {
    const C = D.raw.coverage;
    if (!C || (!C.gaps && !C.silences)) return card("rg-strip", t("rg_strip"), null, unavailable(null, t("rg_no_coverage")));
    const dates = datesOfDayType();
    const nDates = Math.max(1, dates.size);
    const lines = new Set();
    const Hh = D.headways.hours;
    if (Hh) for (let i = 0; i < Hh.line.length; i++) if (Hh.line[i] >= 0 && lineOk(Hh.line[i]) && dayTypeOk(Hh.day_type[i])) lines.add(Hh.line[i]);
    const H = D.headways.headways;
    if (H) for (let g = 0; g < H.line.length; g++) if (H.line[g] >= 0 && lineOk(H.line[g]) && dayTypeOk(H.day_type[g])) lines.add(H.line[g]);
    if (C.silences) for (const l of C.silences.line) if (l >= 0 && lineOk(l)) lines.add(l);
    const ordered = Array.from(lines).sort((a, b) => D.lineMode[a] - D.lineMode[b] || a - b);
    const MAX = 60;
    const shown = ordered.slice(0, MAX);
    // Minute counts over the scope's dates, from intervals [start_min, start_min + minutes).
    const spread = (counts, list, start, minutes) => {
      for (let m = start; m < start + minutes; m++) {
        const day = Math.floor(m / 1440);
        if (!dates.has(day)) continue;
        counts[m % 1440]++;
      }
      list.push([start, minutes]);
    };
    const rows = [];
    for (const l of shown) {
      const feeds = D.lineFeeds[l].length ? D.lineFeeds[l] : Array.from({ length: D.nFeeds }, (_, f) => f);
      const blind = new Array(1440).fill(0);
      const silent = new Array(1440).fill(0);
      const blindList = [];
      const silentList = [];
      if (C.gaps) for (let i = 0; i < C.gaps.feed.length; i++) if (feeds.includes(C.gaps.feed[i]) && dates.has(Math.floor(C.gaps.start_min[i] / 1440))) spread(blind, blindList, C.gaps.start_min[i], C.gaps.minutes[i]);
      if (C.silences) for (let i = 0; i < C.silences.line.length; i++) if (C.silences.line[i] === l && dates.has(Math.floor(C.silences.start_min[i] / 1440))) spread(silent, silentList, C.silences.start_min[i], C.silences.minutes[i]);
      const plannedHours = new Array(HOURS).fill(0);
      if (Hh) for (let i = 0; i < Hh.line.length; i++) if (Hh.line[i] === l && dayTypeOk(Hh.day_type[i]) && Hh.hour[i] >= 0) plannedHours[Hh.hour[i]] += Hh.planned[i];
      rows.push({ line: l, blind, silent, blindList, silentList, plannedHours });
    }
    const width = 900;
    const labelW = 120;
    const rowH = 12;
    const plotW = width - labelW - 8;
    const x = (minute) => labelW + (minute / 1440) * plotW;
    const height = rows.length * (rowH + 4) + 22;
    const svg = s("svg", { viewBox: "0 0 " + width + " " + height, width: "100%", role: "img", "aria-label": t("rg_strip") });
    rows.forEach((r, i) => {
      const y = i * (rowH + 4);
      const g = s("g", { class: "strip-row", "data-line": lineKey(r.line) });
      g.appendChild(s("text", { x: labelW - 6, y: y + rowH - 2, "text-anchor": "end", text: lineLabel(r.line) }));
      g.appendChild(s("rect", { x: labelW, y: y, width: plotW, height: rowH, fill: "#f3f4f7" }));
      for (let hour = 0; hour < HOURS; hour++) {
        if (r.plannedHours[hour] > 0) g.appendChild(s("rect", { class: "strip-planned", x: x(hour * 60), y: y, width: plotW / HOURS, height: rowH, fill: "#dbe7f3" }));
      }
      const runs = (counts, kind, color, y0, hh) => {
        let m = 0;
        while (m < 1440) {
          if (!counts[m]) { m++; continue; }
          const v = counts[m];
          let e = m;
          while (e < 1440 && counts[e] === v) e++;
          g.appendChild(s("rect", { class: "strip-" + kind, "data-kind": kind, x: x(m), y: y0, width: Math.max(1.5, x(e) - x(m)), height: hh, fill: color, "fill-opacity": Math.max(0.25, v / nDates).toFixed(2) }));
          m = e;
        }
      };
      runs(r.blind, "blind", "#D55E00", y, rowH);
      runs(r.silent, "silent", "#000000", y + rowH * 0.25, rowH * 0.5);
      const parts = [lineLabel(r.line)];
      const describe = (list, label) => {
        if (!list.length) return;
        const items = list.slice(0, 6).map(([start, minutes]) => (D.nDays > 1 ? dateLabel(D.dates[Math.floor(start / 1440)]) + " " : "") + minuteLabel(start) + "–" + minuteLabel(start + minutes) + " (" + t("minutes_short", { n: nf(minutes) }) + ")");
        parts.push(label + ": " + items.join(", ") + (list.length > 6 ? " … (" + nf(list.length) + ")" : ""));
      };
      describe(r.blindList, t("rg_strip_blind"));
      describe(r.silentList, t("rg_strip_silent"));
      if (parts.length === 1) parts.push(t("rg_strip_clear"));
      const tip = parts.join("\n");
      g.appendChild(s("rect", { class: "hit", x: labelW, y: y, width: plotW, height: rowH, fill: "transparent" }));
      g.setAttribute("aria-label", tip.replace(/\n/g, "; "));
      g.addEventListener("mouseenter", (e) => showTip(tip, e.clientX, e.clientY));
      g.addEventListener("mousemove", (e) => showTip(tip, e.clientX, e.clientY));
      g.addEventListener("mouseleave", hideTip);
      svg.appendChild(g);
    });
    const axisY = rows.length * (rowH + 4) + 14;
    for (let hour = 0; hour <= HOURS; hour += 3) {
      svg.appendChild(s("text", { x: x(hour * 60), y: axisY, "text-anchor": "middle", class: "strip-axis", text: hourLabel(hour % 24) }));
    }
    const sub = t("rg_strip_sub", { n: nf(dates.size) }) + (ordered.length > MAX ? " " + t("rg_strip_more", { n: nf(MAX), total: nf(ordered.length) }) : "");
    const body = rows.length ? [h("div", { class: "strip" }, svg), legend([
      { color: "#dbe7f3", label: t("rg_strip_planned") },
      { color: "#D55E00", label: t("rg_strip_blind") + (C.gaps ? "" : " (" + t("not_available") + ")") },
      { color: "#000000", label: t("rg_strip_silent") + (C.silences ? "" : " (" + t("not_available") + ")") },
    ])] : unavailable(null, t("rg_strip_none"));
    return card("rg-strip", t("rg_strip"), sub, body, { note: singleLineFeedsNote() });
  }

  // Feeds that carry a single line cannot tell a blind feed from a silent line (semantics §7).
  function singleLineFeeds() {
    const out = [];
    for (let f = 0; f < D.nFeeds; f++) {
      let n = 0;
      for (let l = 0; l < D.nLines; l++) if (D.lineRoute[l] !== "" && D.lineFeeds[l].includes(f)) n++;
      if (n === 1) out.push(f);
    }
    return out;
  }
  function singleLineFeedsNote() {
    const feeds = singleLineFeeds();
    return feeds.length ? t("rg_single_line_feeds", { feeds: feeds.map((f) => D.feeds[f]).join(", ") }) : null;
  }

  // What these numbers can and cannot tell.
  function limitsCard() {
    const HW = D.headways;
    const old = HW && HW.headways && !HW.measured_only;
    const body = h("div", { class: "limits" },
      old ? h("p", { class: "warn", "data-limits": "old", text: t("rg_limits_old") }) : null,
      h("p", { text: t("rg_limits_coverage") }),
      h("p", { text: t("rg_limits_breaks") }),
      h("p", { text: t("rg_limits_plan") }),
      h("p", { text: t("rg_limits_late") }),
      h("p", { text: t("rg_limits_single") }));
    return card("rg-limits", t("rg_limits"), null, body);
  }

  // Line-days the feed watched without one position of the line (headway_summary's whole
  // day, for the lines and day type in scope): their planned departures are out of the
  // found share, and said apart. Null when the summary does not count them.
  function lineDaysNotSeen() {
    const U = D.headways.summary;
    if (!U || !U.line_days_not_seen) return null;
    const dtIndex = S.dt === null ? -1 : D.headways.day_types.indexOf(S.dt);
    const mode = effectiveMode();
    let days = 0;
    let planned = 0;
    for (let i = 0; i < U.line.length; i++) {
      if (U.day_type[i] !== dtIndex || !headwayLineOk(U.line[i])) continue;
      if (mode !== null && D.lineMode[U.line[i]] !== mode) continue;
      days += U.line_days_not_seen[i] || 0;
      planned += (U.departures_not_seen && U.departures_not_seen[i]) || 0;
    }
    return days > 0 ? { days: days, planned: planned } : null;
  }

  function regularityTable() {
    const mode = effectiveMode();
    const Hh = D.headways.hours;
    const H = D.headways.headways;
    const X = D.headways.excluded;
    const U = D.headways.summary;
    const keys = new Map();
    const addKey = (l, dir) => {
      if (l < 0 || (mode !== null && D.lineMode[l] !== mode)) return;
      keys.set(l + ":" + dir, [l, dir]);
    };
    for (let g = 0; g < H.line.length; g++) addKey(H.line[g], H.direction[g]);
    if (Hh) for (let i = 0; i < Hh.line.length; i++) addKey(Hh.line[i], Hh.direction[i]);
    const dtIndex = S.dt === null ? -1 : D.headways.day_types.indexOf(S.dt);
    const rows = [];
    for (const [l, dir] of keys.values()) {
      const st = headwayStats((line, hour, d, dt) => line === l && d === dir && hourOk(hour) && dayTypeOk(dt), l);
      let found = 0;
      let planned = 0;
      if (Hh) {
        for (let i = 0; i < Hh.line.length; i++) {
          if (Hh.line[i] !== l || Hh.direction[i] !== dir || !hourOk(Hh.hour[i]) || !dayTypeOk(Hh.day_type[i])) continue;
          found += Hh.found[i];
          planned += Hh.planned[i];
        }
      }
      const x = X ? excludedCounts((line, hour, d) => line === l && d === dir && hourOk(hour)) : null;
      if (!st.n && !planned && !found && !(x && x.total)) continue;
      let sm = -1;
      if (U) for (let i = 0; i < U.line.length; i++) if (U.line[i] === l && U.direction[i] === dir && U.day_type[i] === dtIndex) sm = i;
      const fromSummary = (col) => (sm >= 0 && U[col] && U[col][sm] !== null ? U[col][sm] : NaN);
      rows.push({
        line: l, dir: dir, label: lineLabel(l), found: found, planned: planned, ratio: planned ? found / planned : NaN,
        median: st.median / 60, p90: st.p90 / 60, plannedH: st.plannedMedian / 60,
        under60: st.n && !st.tooFew ? st.under60 / st.n : NaN,
        bunching: st.nPlanned ? st.bunching / st.nPlanned : NaN, gap: st.nPlanned ? st.gap / st.nPlanned : NaN, cv: st.cv, band: tcqsmBand(st.cv),
        excluded: x ? x.total : NaN, excludedText: x ? excludedText(x) : "–",
        coverage: fromSummary("coverage_share"), silent: fromSummary("silent_minutes"), late: fromSummary("departures_tagged_late"),
        unseen: fromSummary("line_days_not_seen"),
        completed: fromSummary("trips_completed"), conforming: fromSummary("trips_conforming"),
        plannedDay: fromSummary("departures_planned"),
      });
    }
    const minutes = (v) => (isFinite(v) ? nf(v, 1) : "–");
    const count = (v) => (isFinite(v) ? nf(v) : "–");
    const columns = [
      { key: "label", label: t("col_line"), button: true, value: (r) => D.lineRoute[r.line] + ":" + r.dir },
      { key: "dir", label: t("col_direction"), num: true, format: (r) => (r.dir >= 0 ? String(r.dir) : "–") },
      { key: "found", label: t("col_found"), num: true, format: (r) => nf(r.found) },
      { key: "planned", label: t("col_planned"), num: true, format: (r) => nf(r.planned) },
      { key: "ratio", label: t("col_ratio"), num: true, format: (r) => pct(r.ratio, 0) },
      { key: "median", label: t("col_median"), num: true, format: (r) => minutes(r.median) },
      { key: "p90", label: t("col_p90"), num: true, format: (r) => minutes(r.p90) },
      { key: "plannedH", label: t("col_planned_h"), num: true, format: (r) => minutes(r.plannedH) },
      { key: "under60", label: t("col_under60"), num: true, format: (r) => pct(r.under60, 0) },
      { key: "bunching", label: t("col_bunching"), num: true, format: (r) => pct(r.bunching, 0) },
      { key: "gap", label: t("col_gap"), num: true, format: (r) => pct(r.gap, 0) },
      { key: "cv", label: t("col_cv"), num: true, format: (r) => (isFinite(r.cv) ? nf(r.cv, 2) : "–") },
      { key: "band", label: t("col_band"), node: (r) => { const b = h("span", { class: "band", text: r.band }); b.style.background = BAND_COLORS[r.band]; b.style.color = BAND_INK[r.band]; return b; } },
      { key: "excluded", label: t("col_excluded"), num: true, format: (r) => count(r.excluded), node: X ? (r) => h("span", { title: r.excludedText, text: count(r.excluded) }) : undefined },
    ];
    if (U && U.coverage_share) columns.push({ key: "coverage", label: t("col_coverage"), num: true, format: (r) => pct(r.coverage, 0) });
    if (U && U.silent_minutes) columns.push({ key: "silent", label: t("col_silent"), num: true, format: (r) => count(r.silent) });
    if (U && U.departures_tagged_late) columns.push({ key: "late", label: t("col_late"), num: true, format: (r) => count(r.late) });
    if (U && U.line_days_not_seen) columns.push({ key: "unseen", label: t("col_not_seen"), num: true, format: (r) => count(r.unseen) });
    // Trips as runs that completed their pattern, and that conformed to Rio's trip
    // validation, against the whole day's planned departures of the day type in scope.
    const ofPlanned = (v, r) => (isFinite(v) ? nf(v) + (r.plannedDay > 0 ? " (" + pct(v / r.plannedDay, 0) + ")" : "") : "–");
    if (U && U.trips_completed) columns.push({ key: "completed", label: t("col_completed"), num: true, format: (r) => ofPlanned(r.completed, r) });
    if (U && U.trips_conforming) columns.push({ key: "conforming", label: t("col_conforming"), num: true, format: (r) => ofPlanned(r.conforming, r) });
    return dataTable({
      id: "rg-lines",
      caption: t("rg_lines"),
      columns: columns,
      rows: rows,
      sort: { key: "label", desc: false },
      onRow: (r) => toggle("line", r.line),
      selected: (r) => r.line === S.line,
      rowKey: (r) => lineKey(r.line) + ":" + r.dir,
    });
  }

