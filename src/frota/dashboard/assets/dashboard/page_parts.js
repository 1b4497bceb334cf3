  // ===================================================================== 8. page parts

  function card(id, title, sub, body, opts) {
    const o = opts || {};
    const titleId = "title-" + id;
    return h("section", { class: "card " + (o.span || "span-12"), "data-visual": id, "aria-labelledby": titleId },
      h("div", { class: "card-head" },
        h("div", null, h("h2", { id: titleId, text: title }), sub ? h("p", { class: "sub", text: sub }) : null),
        h("button", { type: "button", class: "help", "data-fk": "help:" + id, "aria-label": t("help_for", { name: title }), title: t("help"), text: "?", onclick: () => openDoc(id) })),
      body,
      o.note ? h("p", { class: "note", text: o.note }) : null);
  }
  function kpi(key, label, value, detail) {
    return h("div", { class: "kpi" },
      h("div", { class: "label", text: label }),
      h("div", { class: "value", "data-kpi": key, text: value }),
      detail ? h("div", { class: "detail", text: detail }) : null);
  }
  function unavailable(title, text) {
    return h("div", { class: "unavailable", role: "note" }, h("strong", { text: t("not_available") + ": " }), title ? h("span", { text: title + " " }) : null, h("span", { text: text }));
  }
  function hourChart(id, series, o) {
    return chart(Object.assign({
      id: id,
      labels: HOUR_LABELS(),
      series: series,
      selected: S.hour,
      onSelect: (i) => toggle("hour", i),
      labelWidth: 40,
    }, o || {}));
  }
  function stack(span) {
    const div = h("div", { class: span + " stack" });
    div.style.display = "grid";
    div.style.gap = "16px";
    div.style.alignContent = "start";
    for (let i = 1; i < arguments.length; i++) {
      const c = arguments[i];
      c.classList.remove("span-12");
      div.appendChild(c);
    }
    return div;
  }

  // The quality figures of `feeds` at the hour filter, as the Quality and Aircraft pages
  // show them: totals (qualityTotals), error rate and latency percentiles; `kpis` are the
  // summary's numbers, `extra` more of them after the errors and duplicates.
  function qualityFigures(feeds) {
    const q = qualityTotals(feeds, S.hour);
    q.rate = q.accepted + q.errors > 0 ? q.errors / (q.accepted + q.errors) : NaN;
    q.p50 = latencyPercentile(q.latency, 0.5);
    q.p90 = latencyPercentile(q.latency, 0.9);
    return q;
  }
  function qualityKpis(q, extra) {
    return h("div", { class: "kpis" },
      kpi("accepted", t("accepted"), nf(q.accepted)),
      kpi("errors", t("errors"), nf(q.errors)),
      kpi("error_rate", t("error_rate"), pct(q.rate, 2)),
      kpi("duplicates", t("duplicates"), nf(q.duplicates)),
      extra || null,
      kpi("latency_p50", t("latency_p50"), isFinite(q.p50) ? nf(q.p50) + " s" : "–"),
      kpi("latency_p90", t("latency_p90"), isFinite(q.p90) ? nf(q.p90) + " s" : "–"));
  }
  // Rejections by reason (the reasons with any), largest first; null when there are none.
  function reasonTable(id, q) {
    const rows = D.quality.reason_names.filter((r) => q.reasons[r] > 0).map((r) => ({ reason: reasonName(r), code: r, count: q.reasons[r] }));
    return rows.length ? dataTable({ id: id, caption: t("q_reasons"), columns: [
      { key: "reason", label: t("q_reason_table"), format: (r) => r.reason + " (" + r.code + ")" },
      { key: "count", label: t("q_count"), num: true, format: (r) => nf(r.count) },
    ], rows: rows, sort: { key: "count", desc: true } }) : null;
  }
