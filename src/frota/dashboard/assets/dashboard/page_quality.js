  // ---- quality -----------------------------------------------------------------------

  function reasonName(name) {
    const names = WORDS[LANG].reason_names;
    return names[name] || name;
  }
  function pageQuality() {
    const Q = D.quality;
    const feeds = scopeFeeds();
    const q = qualityFigures(feeds);
    const p50 = q.p50;
    const p90 = q.p90;
    const scopeNote = S.mode !== null || S.line !== null ? t("q_scope_feeds", { feeds: feeds.map((f) => D.feeds[f]).join(", ") || "–" }) : null;
    const cards = [];
    cards.push(card("q-kpis", t("q_kpis"), filterSummary(), qualityKpis(q), { note: scopeNote }));

    // Latency histogram, 10 s bands from -30 s.
    // 10 s bands from -30 s up to the last band with data (at least to 120 s, at most 300 s).
    let maxSec = 120;
    for (const sec of q.latency.keys()) maxSec = Math.max(maxSec, sec);
    const nb = Math.min(33, Math.floor((maxSec + 30) / 10) + 1);
    const lat = new Array(nb).fill(0);
    for (const [sec, n] of q.latency) lat[Math.min(nb - 1, Math.max(0, Math.floor((sec + 30) / 10)))] += n;
    const markers = [];
    if (isFinite(p50)) markers.push({ at: (p50 + 30) / 10, label: "p50 " + nf(p50) + " s" });
    if (isFinite(p90)) markers.push({ at: (p90 + 30) / 10, label: "p90 " + nf(p90) + " s", row: 1 });
    cards.push(card("q-latency", t("q_latency"), t("q_latency_sub"), chart({
      id: "q-latency",
      labels: lat.map((_, i) => String(i * 10 - 30)),
      labelWidth: 30,
      series: [{ label: t("positions"), color: "#0072B2", values: lat }],
      markers: markers,
      format: (v) => nf(v),
      tipSuffix: (i) => "…" + (i * 10 - 21) + " s",
      ariaLabel: t("q_latency"),
    }), { span: "span-6" }));

    // Rejections by reason and hour (every hour shown; hour selection highlights).
    const reasons = Object.keys(Q.rejected).filter((r) => r !== "duplicate");
    const perHour = reasons.map((name) => {
      const values = new Array(HOURS).fill(0);
      for (const f of feeds) for (let hour = 0; hour < HOURS; hour++) values[hour] += Q.rejected[name][f * HOURS + hour];
      return values;
    });
    const series = reasons.map((name, i) => ({ label: reasonName(name), color: REASON_COLORS[i % REASON_COLORS.length], values: perHour[i] }));
    const zero = Q.reason_names.filter((r) => !(r in Q.rejected) || q.reasons[r] === 0);
    cards.push(card("q-reasons", t("q_reasons"), t("q_reasons_sub"), [
      reasons.length ? hourChart("q-reasons", series, { format: (v) => nf(v), ariaLabel: t("q_reasons") }) : unavailable(null, t("q_no_rejections")),
      reasons.length ? legend(series.map((sr) => ({ color: sr.color, label: sr.label }))) : null,
      reasonTable("q-reason-table", q),
    ], { span: "span-6", note: zero.length ? t("q_other_reasons", { names: zero.join(", ") }) : null }));

    // Repeated responses and collector health: only when the collector's table exists.
    const C = D.collector;
    if (C && C.has_repeat) {
      const values = new Array(HOURS).fill(0);
      const polls = new Array(HOURS).fill(0);
      for (const f of feeds) for (let hour = 0; hour < HOURS; hour++) {
        values[hour] += C.repeats[f * HOURS + hour];
        polls[hour] += C.polls[f * HOURS + hour];
      }
      let rep = 0;
      let all = 0;
      for (let hour = 0; hour < HOURS; hour++) if (hourOk(hour)) { rep += values[hour]; all += polls[hour]; }
      cards.push(card("q-repeats", t("q_repeats"), t("q_repeats_sub"), [
        h("div", { class: "kpis" }, kpi("repeats", t("q_repeated"), nf(rep), pct(all ? rep / all : NaN) + " / " + nf(all) + " " + t("q_polls").toLowerCase())),
        hourChart("q-repeats", [{ label: t("q_repeated"), color: "#CC79A7", values: values }], { format: (v) => nf(v), height: 170, ariaLabel: t("q_repeats") }),
      ], { span: "span-6" }));
    } else {
      cards.push(card("q-repeats", t("q_repeats"), t("q_repeats_sub"), unavailable(null, t("q_collector_unavailable")), { span: "span-6" }));
    }
    if (C) {
      const polls = new Array(HOURS).fill(0);
      const failed = new Array(HOURS).fill(0);
      let ms = 0;
      let n = 0;
      for (const f of feeds) for (let hour = 0; hour < HOURS; hour++) {
        const k = f * HOURS + hour;
        polls[hour] += C.polls[k] - C.failed[k];
        failed[hour] += C.failed[k];
        if (hourOk(hour)) { ms += C.duration_ms[k]; n += C.polls[k]; }
      }
      cards.push(card("q-collector", t("q_collector"), t("q_collector_sub", { table: C.table }), [
        h("div", { class: "kpis" },
          kpi("polls", t("q_polls"), nf(sum(polls.filter((_, i) => hourOk(i))) + sum(failed.filter((_, i) => hourOk(i))))),
          kpi("failed", t("q_failed"), nf(sum(failed.filter((_, i) => hourOk(i))))),
          C.has_duration ? kpi("poll_ms", t("q_mean_ms"), n ? nf(ms / n) + " ms" : "–") : null),
        hourChart("q-collector", [{ label: "200", color: "#0072B2", values: polls }, { label: t("q_failed"), color: "#D55E00", values: failed }], { format: (v) => nf(v), height: 170, ariaLabel: t("q_collector") }),
        dataTable({ id: "q-status", caption: "HTTP", columns: [{ key: "status", label: "HTTP" }, { key: "count", label: t("q_polls"), num: true, format: (r) => nf(r.count) }], rows: C.statuses.map((p) => ({ status: String(p[0]), count: p[1] })), sort: { key: "count", desc: true } }),
      ], { span: "span-6" }));
    } else {
      cards.push(card("q-collector", t("q_collector"), null, unavailable(null, t("q_collector_unavailable")), { span: "span-6" }));
    }

    // Duplicated schedule slots.
    const SL = D.slots;
    const slotRows = [];
    for (let i = 0; i < SL.trip_id.length; i++) {
      if (!feeds.includes(SL.feed[i])) continue;
      if (S.line !== null && SL.line[i] !== S.line) continue;
      if (S.line === null && S.mode !== null && SL.line[i] >= 0 && D.lineMode[SL.line[i]] !== S.mode) continue;
      slotRows.push({ date: SL.date[i], trip: SL.trip_id[i], vehicles: SL.vehicles[i], line: SL.line[i], label: SL.line[i] >= 0 ? lineLabel(SL.line[i]) : "–", feed: D.feeds[SL.feed[i]] });
    }
    const slotBody = [];
    slotBody.push(h("div", { class: "kpis" }, kpi("slots", t("q_slots"), nf(S.line === null && S.mode === null ? SL.total : slotRows.length))));
    if (SL.total === 0) {
      slotBody.push(h("p", { class: "muted", text: t("q_slots_none") }));
    } else {
      if (D.nDays > 1 && S.line === null && S.mode === null) {
        slotBody.push(chart({ id: "q-slots-days", labels: D.dates.map((d) => d.slice(5)), series: [{ label: t("q_slots"), color: "#E69F00", values: SL.per_day }], height: 110, labelWidth: 48, format: (v) => nf(v), tipSuffix: (i) => " (" + dateLabel(D.dates[i]) + ")" }));
      }
      slotBody.push(dataTable({ id: "q-slots", caption: t("q_slots"), limit: 50, columns: [
        { key: "date", label: t("col_date") },
        { key: "trip", label: t("col_trip") },
        { key: "label", label: t("col_line"), value: (r) => r.label },
        { key: "vehicles", label: t("col_vehicles"), num: true, format: (r) => nf(r.vehicles) },
      ], rows: slotRows, sort: { key: "vehicles", desc: true } }));
      if (slotRows.length > 50 || SL.total > SL.trip_id.length) slotBody.push(h("p", { class: "note", text: t("q_slots_more", { n: nf(Math.min(50, slotRows.length)), total: nf(S.line === null && S.mode === null ? SL.total : slotRows.length) }) }));
    }
    cards.push(card("q-slots", t("q_slots"), t("q_slots_sub"), slotBody, { span: "span-6" }));

    // Stage reports.
    const reports = D.reports.map((r) => h("details", { class: "report" },
      h("summary", { text: r.name }),
      dataTable({ id: "q-report-" + r.name, caption: r.name, columns: [{ key: "key", label: "" }, { key: "value", label: "" }], rows: r.keys.map((k, i) => ({ key: k, value: r.values[i], order: i })), sort: { key: "order", desc: false } })));
    cards.push(card("q-reports", t("q_reports"), t("q_reports_sub"), reports.length ? reports : unavailable(null, t("q_reports_none")), { span: "span-6" }));
    return [h("p", { class: "page-intro", text: t("q_intro") }), h("div", { class: "grid" }, cards)];
  }

